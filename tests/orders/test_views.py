"""The desk page /orders/: staff only, orders with refund state, both channels, the chat panel."""

import pytest

from agents.models import Conversation
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
        assert f"→ {name}" in page
    assert "退款已登记" in page
    conversation = Conversation.objects.get()
    assert (conversation.page, conversation.agent) == (URL, desk)
    assert f'name="conversation_id" value="{conversation.pk}"' in page
    assert Refund.objects.get().order.order_no == "HT20260301001"
    again = staff_client.post(
        URL, {"chat": "1", "agent": desk.pk, "message": "查询订单 HT20260301001", "conversation_id": conversation.pk}, **HTMX
    )
    assert Conversation.objects.count() == 1
    assert "退款已登记" in again.content.decode()  # the order now shows its refund


@pytest.mark.django_db(transaction=True)
def test_chat_without_javascript_redirects_to_the_conversation(staff_client, desk):
    response = staff_client.post(URL, {"chat": "1", "agent": desk.pk, "message": "查询订单 HT20260301002"})
    conversation = Conversation.objects.get()
    assert response["Location"] == f"{URL}?conversation={conversation.pk}"
    page = staff_client.get(response["Location"]).content.decode()
    assert "SUP-88902" in page and "查询订单 HT20260301002" in page
