"""The desk page /orders/: staff only, orders with refund state, pending refunds, both channels, the chat panel."""

from datetime import timedelta

import pytest
from django.utils import timezone

from agents.executor import execute
from agents.models import Conversation, PendingAction
from agents.registry import ToolContext
from orders import services
from orders.models import ChannelMessage, Refund

pytestmark = pytest.mark.django_db

URL = "/orders/"
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def staff_client(client, staff_user):
    client.force_login(staff_user)
    return client


def test_anonymous_and_non_staff_users_are_sent_to_log_in(client, django_user_model, desk):
    assert client.get(URL).status_code == 302
    client.force_login(django_user_model.objects.create_user("guest", password="pw-guest-123"))
    response = client.get(URL + "?part=channels", **HTMX)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_page_lists_the_orders_with_their_refund_state(staff_client, desk):
    services.register_refund(order_no="HT20260301002")
    page = staff_client.get(URL).content.decode()
    for order_no, supplier_no in [("HT20260301001", "SUP-88901"), ("HT20260301002", "SUP-88902"), ("HT20260301003", "SUP-88903")]:
        assert f'id="order-{order_no}"' in page and supplier_no in page
    assert 'id="order-HT20260301002" data-refund="registered"' in page
    assert 'id="order-HT20260301001" data-refund=""' in page
    assert 'id="desk-chat"' in page and "前台助理" in page


def test_channels_show_their_messages_and_unread_counts(staff_client, desk):
    services.send_message(channel="upstream", content="请确认", order_no="HT20260301001")
    services.send_message(channel="upstream", content="好的", sender="supplier")
    services.send_message(channel="downstream", content="已读的问候")
    ChannelMessage.objects.filter(channel="downstream").update(read=True)
    response = staff_client.get(URL + "?part=channels", **HTMX)
    page = response.content.decode()
    assert "<html" not in page  # a partial
    assert 'class="badge unread" data-unread="2"' in page
    assert 'class="badge" data-unread="0"' in page
    assert page.count('data-read="false"') == 2 and page.count('data-read="true"') == 1
    assert "请确认" in page and "好的" in page and "已读的问候" in page


def test_message_content_is_escaped(staff_client, desk):
    services.send_message(channel="downstream", content="<script>alert(1)</script>")
    page = staff_client.get(URL).content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_marking_a_channel_read_clears_its_unread_marker(staff_client, desk):
    services.send_message(channel="upstream", content="a")
    services.send_message(channel="downstream", content="b")
    response = staff_client.post(URL, {"mark_read": "upstream"}, **HTMX)
    assert response.status_code == 200 and response["HX-Trigger"] == "orders-changed"
    assert dict(ChannelMessage.objects.values_list("channel", "read")) == {"upstream": True, "downstream": False}
    assert 'id="live-upstream"' in response.content.decode()


def test_marking_read_without_javascript_redirects_back(staff_client, desk):
    services.send_message(channel="upstream", content="a")
    response = staff_client.post(URL, {"mark_read": "upstream"})
    assert (response.status_code, response["Location"]) == (302, URL)
    assert ChannelMessage.objects.get().read


def test_staff_send_a_message_as_the_desk_and_the_supplier_answers(staff_client, desk, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(
            URL, {"send": "1", "channel": "upstream", "order_no": "HT20260301003", "content": "请确认退款"}, **HTMX
        )
    assert response["HX-Trigger"] == "orders-changed"
    assert list(ChannelMessage.objects.values_list("sender", "content", "order__order_no")) == [
        ("desk", "请确认退款", "HT20260301003"),
        ("supplier", "已处理完成，可以办理退款", "HT20260301003"),
    ]


def test_an_empty_message_is_refused_inline(staff_client, desk):
    response = staff_client.post(URL, {"send": "1", "channel": "downstream", "order_no": "", "content": "   "}, **HTMX)
    assert response.status_code == 200 and "HX-Trigger" not in response
    assert "消息内容不能为空" in response.content.decode()
    assert not ChannelMessage.objects.exists()


@pytest.mark.parametrize("channel", ["%", "%s", "%(x)s", "a%", "side"])
def test_an_unknown_channel_is_refused_inline_not_a_500(staff_client, desk, channel):
    response = staff_client.post(URL, {"send": "1", "channel": channel, "order_no": "", "content": "hi"}, **HTMX)
    assert response.status_code == 200 and "HX-Trigger" not in response
    assert not ChannelMessage.objects.exists()


def test_a_message_without_javascript_posts_and_redirects(staff_client, desk):
    response = staff_client.post(URL, {"send": "1", "channel": "downstream", "order_no": "", "content": "您好"})
    assert (response.status_code, response["Location"]) == (302, URL)
    assert ChannelMessage.objects.get().content == "您好"


def test_an_empty_chat_message_is_refused_inline(staff_client, desk):
    response = staff_client.post(URL, {"chat": "1", "agent": desk.pk, "message": " "}, **HTMX)
    assert "消息不能为空" in response.content.decode()
    assert not Conversation.objects.exists()


def test_the_chat_panel_needs_a_desk_agent(staff_client, make_agent):
    outsider = make_agent("Outsider", tools=("message_send",))
    page = staff_client.get(URL).content.decode()
    assert "没有可用的前台助理" in page
    response = staff_client.post(URL, {"chat": "1", "agent": outsider.pk, "message": "查询订单 HT20260301001"}, **HTMX)
    assert "没有可用的前台助理" in response.content.decode() and "HX-Trigger" not in response
    assert not Conversation.objects.exists()


def test_the_page_speaks_english(staff_client, desk):
    page = staff_client.get(URL, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Early checkout desk" in page
    assert "Downstream (guest)" in page and "Upstream (supplier)" in page
    assert "Mark read" in page


@pytest.mark.django_db(transaction=True)
def test_the_desk_agent_handles_an_early_checkout_from_the_page(staff_client, desk):
    response = staff_client.post(URL, {"chat": "1", "agent": desk.pk, "message": "客人要提前离店，订单 HT20260301001"}, **HTMX)
    assert response["HX-Trigger"] == "orders-changed"
    page = response.content.decode()
    assert 'id="desk-chat"' in page and "<html" not in page
    for name in ("order_query", "message_send", "message_list", "refund"):
        assert f"→ <code>{name}</code>" in page
    action = PendingAction.objects.get()
    assert f"等待员工确认（#{action.pk}）" in page
    conversation = Conversation.objects.get()
    assert (conversation.page, conversation.agent) == (URL, desk)
    assert f'name="conversation_id" value="{conversation.pk}"' in page
    assert not Refund.objects.exists()
    refunds = staff_client.get(URL + "?part=refunds", **HTMX).content.decode()
    assert f'id="pending-refund-{action.pk}"' in refunds


def propose_refund(desk, order_no="HT20260301001") -> PendingAction:
    result = execute("refund", {"order_no": order_no}, ToolContext(agent=desk))
    return PendingAction.objects.get(pk=result["pending_action_id"])


def decide(client, action_id, decision, **headers):
    return client.post(URL, {"decide": decision, "pending_action_id": action_id}, **headers)


def test_the_page_shows_a_pending_refund_from_its_proposal_with_confirm_and_reject(staff_client, desk):
    conversation = Conversation.objects.create(agent=desk)
    result = execute("refund", {"order_no": "HT20260301001"}, ToolContext(agent=desk, conversation=conversation))
    action = PendingAction.objects.get(pk=result["pending_action_id"])
    conversation.messages.create(role="assistant", content="已为 HT20260301003 办理退款，请点确认")  # the model's prose
    page = staff_client.get(URL + "?part=refunds", **HTMX).content.decode()
    assert "HT20260301003" not in page
    row = page[page.index(f'id="pending-refund-{action.pk}"'):]
    row = row[: row.index("</tr>")]
    assert 'data-order="HT20260301001"' in row and "张三" in row and action.summary in row
    assert 'name="decide" value="confirm"' in row and 'name="decide" value="reject"' in row
    assert 'method="post"' in row and "csrfmiddlewaretoken" in row


def test_the_refunds_part_lists_only_open_refund_proposals(staff_client, desk):
    waiting = propose_refund(desk, "HT20260301001")
    overdue = propose_refund(desk, "HT20260301002")
    PendingAction.objects.filter(pk=overdue.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    other = PendingAction.objects.create(
        tool_name="create_fund", agent=desk, arguments={"fund_name": "X"}, mode="standalone", summary="创建基金 X",
        expires_at=timezone.now() + timedelta(hours=1),
    )
    page = staff_client.get(URL + "?part=refunds", **HTMX).content.decode()
    assert "<html" not in page and 'id="desk-refunds"' in page
    assert f'id="pending-refund-{waiting.pk}"' in page
    assert f'id="pending-refund-{overdue.pk}"' not in page and f'id="pending-refund-{other.pk}"' not in page


def test_confirming_on_the_page_registers_the_refund_and_tells_the_guest(admin_client, admin_user, desk):
    action = propose_refund(desk)
    response = decide(admin_client, action.pk, "confirm", **HTMX)
    assert response.status_code == 200 and response["HX-Trigger"] == "orders-changed"
    page = response.content.decode()
    assert 'id="desk-refunds"' in page and "<html" not in page
    assert "已通知客人 张三" in page and f'id="pending-refund-{action.pk}"' not in page
    action.refresh_from_db()
    assert (action.status, action.decided_by) == ("confirmed", admin_user)
    assert Refund.objects.get().order.order_no == "HT20260301001"
    assert ChannelMessage.objects.get().channel == "downstream"
    later = admin_client.get(URL + "?part=refunds", **HTMX).content.decode()  # the outcome is a row, not a flash
    assert f'id="decided-refund-{action.pk}" class="decided" data-status="confirmed"' in later


def test_rejecting_on_the_page_registers_nothing_and_tells_the_guest_nothing(admin_client, admin_user, desk):
    action = propose_refund(desk)
    response = decide(admin_client, action.pk, "reject", **HTMX)
    assert response["HX-Trigger"] == "orders-changed" and "已取消，未执行" in response.content.decode()
    action.refresh_from_db()
    assert (action.status, action.decided_by) == ("rejected", admin_user)
    assert not Refund.objects.exists() and not ChannelMessage.objects.exists()


def test_deciding_without_javascript_redirects_back(admin_client, desk):
    action = propose_refund(desk)
    response = decide(admin_client, action.pk, "confirm")
    assert (response.status_code, response["Location"]) == (302, URL)
    assert Refund.objects.exists()


def test_a_decided_refund_cannot_be_decided_again(admin_client, desk):
    action = propose_refund(desk)
    decide(admin_client, action.pk, "reject", **HTMX)
    response = decide(admin_client, action.pk, "confirm", **HTMX)
    assert response.status_code == 200 and "HX-Trigger" not in response
    assert "不能重复决定" in response.content.decode()
    assert not Refund.objects.exists()


@pytest.mark.parametrize("decision, action_id", [("confirm", "999999"), ("delete", None), ("confirm", "abc"), ("confirm", ""), ("confirm", str(2**63)), ("confirm", "²")])
def test_bad_decisions_are_refused_inline_and_change_nothing(admin_client, desk, decision, action_id):
    action = propose_refund(desk)
    response = decide(admin_client, action.pk if action_id is None else action_id, decision, **HTMX)
    assert response.status_code == 200 and "HX-Trigger" not in response
    assert 'class="errorlist' in response.content.decode()
    action.refresh_from_db()
    assert action.status == "pending" and not Refund.objects.exists()


def test_the_page_decides_no_other_tools_proposal(admin_client, desk):
    other = PendingAction.objects.create(
        tool_name="create_fund", agent=desk, arguments={"fund_name": "X"}, mode="standalone", summary="创建基金 X",
        expires_at=timezone.now() + timedelta(hours=1),
    )
    response = decide(admin_client, other.pk, "confirm", **HTMX)
    assert "待确认操作不存在" in response.content.decode()
    other.refresh_from_db()
    assert other.status == "pending"


def test_a_get_decides_nothing(admin_client, desk):
    action = propose_refund(desk)
    admin_client.get(URL, {"decide": "confirm", "pending_action_id": action.pk})
    action.refresh_from_db()
    assert action.status == "pending"


def test_non_staff_cannot_decide(client, django_user_model, desk):
    action = propose_refund(desk)
    client.force_login(django_user_model.objects.create_user("guest", password="pw-guest-123"))
    response = decide(client, action.pk, "confirm", **HTMX)
    assert response.status_code == 302
    action.refresh_from_db()
    assert action.status == "pending"


def test_the_pending_refunds_speak_english(admin_client, desk):
    propose_refund(desk)
    page = admin_client.get(URL, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Refunds to confirm" in page and "Confirm refund" in page and ">Reject<" in page


@pytest.mark.django_db(transaction=True)
def test_chat_without_javascript_redirects_to_the_conversation(staff_client, desk):
    response = staff_client.post(URL, {"chat": "1", "agent": desk.pk, "message": "查询订单 HT20260301002"})
    conversation = Conversation.objects.get()
    assert response["Location"] == f"{URL}?conversation={conversation.pk}"
    page = staff_client.get(response["Location"]).content.decode()
    assert "SUP-88902" in page and "查询订单 HT20260301002" in page
