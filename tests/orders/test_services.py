"""Business rules of the desk: messages, the supplier simulator, refunds."""

import pytest
from django.db import IntegrityError

from core.errors import ApplicationError, Conflict, NotFound
from core.models import EventLog
from orders import services
from orders.models import ChannelMessage, Order, Refund

pytestmark = pytest.mark.django_db


def test_message_send_stores_an_unread_message_from_the_desk(desk):
    message = services.send_message(channel="downstream", content="  您好  ", order_no="HT20260301001")
    message.refresh_from_db()
    assert (message.channel, message.sender, message.content, message.read) == ("downstream", "desk", "您好", False)
    assert message.order.order_no == "HT20260301001"


def test_message_send_without_an_order_is_allowed(desk):
    assert services.send_message(channel="upstream", content="hello").order is None


@pytest.mark.parametrize("channel", ["sideways", "", "UPSTREAM", "guest"])
def test_message_send_refuses_an_unknown_channel(desk, channel):
    with pytest.raises(ApplicationError) as caught:
        services.send_message(channel=channel, content="hi")
    assert (caught.value.code, caught.value.field) == ("invalid_channel", "channel")
    assert not ChannelMessage.objects.exists()


@pytest.mark.parametrize("content", ["", "   ", "\n\t "])
def test_message_send_refuses_empty_content(desk, content):
    with pytest.raises(ApplicationError) as caught:
        services.send_message(channel="downstream", content=content)
    assert (caught.value.code, caught.value.message) == ("empty_content", "消息内容不能为空")
    assert not ChannelMessage.objects.exists()


def test_message_send_refuses_content_over_the_limit(desk):
    with pytest.raises(ApplicationError) as caught:
        services.send_message(channel="downstream", content="字" * (services.MAX_CONTENT_LENGTH + 1))
    assert caught.value.code == "content_too_long"
    services.send_message(channel="downstream", content="字" * services.MAX_CONTENT_LENGTH)


def test_message_send_refuses_an_unknown_order(desk):
    with pytest.raises(NotFound) as caught:
        services.send_message(channel="upstream", content="hi", order_no="HT00000000000")
    assert (caught.value.code, caught.value.message) == ("order_not_found", "订单不存在")
    assert not ChannelMessage.objects.exists()


def test_supplier_answers_the_desks_upstream_message_after_commit(desk, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        asked = services.send_message(channel="upstream", content="可以退款吗？", order_no="HT20260301001")
        assert ChannelMessage.objects.count() == 1  # nothing before the desk's message commits
    reply = ChannelMessage.objects.exclude(pk=asked.pk).get()
    assert (reply.channel, reply.sender, reply.content, reply.read) == ("upstream", "supplier", "已处理完成，可以办理退款", False)
    assert reply.order == asked.order
    assert reply.pk > asked.pk


def test_supplier_answers_in_the_language_of_the_message_it_got(desk, django_capture_on_commit_callbacks):
    from orders.intents import SUPPLIER_AGREES

    with django_capture_on_commit_callbacks(execute=True):
        services.send_message(channel="upstream", content="Can the guest check out early?", order_no="HT20260301001")
    reply = ChannelMessage.objects.filter(sender="supplier").get()
    assert reply.content == "Processed on our side: the refund is approved."  # it used to answer in Chinese
    assert SUPPLIER_AGREES.search(reply.content)  # the desk still reads it as the go-ahead


def test_supplier_is_silent_when_the_simulator_is_off(desk, settings, django_capture_on_commit_callbacks):
    settings.SUPPLIER_SIMULATOR = False
    with django_capture_on_commit_callbacks(execute=True):
        services.send_message(channel="upstream", content="可以退款吗？", order_no="HT20260301001")
    assert list(ChannelMessage.objects.values_list("sender", flat=True)) == ["desk"]


def test_supplier_answers_only_the_desk_in_the_upstream_channel(desk, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        services.send_message(channel="downstream", content="客人您好")
        services.send_message(channel="upstream", content="收到", sender="supplier")
    assert list(ChannelMessage.objects.values_list("sender", "content")) == [("desk", "客人您好"), ("supplier", "收到")]


def test_supplier_does_not_answer_a_rolled_back_message(desk, django_capture_on_commit_callbacks):
    from django.db import transaction

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with transaction.atomic():
            services.send_message(channel="upstream", content="可以退款吗？")
            transaction.set_rollback(True)
    assert callbacks == []
    assert not ChannelMessage.objects.exists()


def test_messages_are_announced_live(desk, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        services.send_message(channel="upstream", content="可以退款吗？", order_no="HT20260301001")
    events = EventLog.objects.filter(event="order_message").order_by("seq")
    assert [(e.event, e.data["sender"], e.data["channel"], e.data["order_no"]) for e in events] == [
        ("order_message", "desk", "upstream", "HT20260301001"),
        ("order_message", "supplier", "upstream", "HT20260301001"),
    ]


def test_marking_a_channel_read_leaves_the_other_unread(desk, django_capture_on_commit_callbacks):
    services.send_message(channel="downstream", content="a")
    services.send_message(channel="upstream", content="b", sender="supplier")
    with django_capture_on_commit_callbacks(execute=True):
        assert services.mark_messages_read(channel="upstream") == 1
    assert dict(ChannelMessage.objects.values_list("channel", "read")) == {"downstream": False, "upstream": True}
    assert EventLog.objects.latest("seq").event == "order_messages_read"
    assert services.mark_messages_read(channel="upstream") == 0


def test_marking_read_refuses_an_unknown_channel(desk):
    with pytest.raises(ApplicationError) as caught:
        services.mark_messages_read(channel="nowhere")
    assert caught.value.code == "invalid_channel"


def test_refund_register_records_a_refund_for_the_order(desk, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        refund = services.register_refund(order_no=" ht20260301001 ")
    assert (refund.order.order_no, refund.status) == ("HT20260301001", "registered")
    event = EventLog.objects.get(event="refund_registered")
    assert (event.data["order_no"], event.data["status"]) == ("HT20260301001", "registered")


def test_a_registered_refund_tells_the_guest_downstream(desk):
    services.register_refund(order_no="HT20260301001")
    told = ChannelMessage.objects.get()
    assert (told.channel, told.sender, told.order.order_no, told.read) == ("downstream", "desk", "HT20260301001", False)
    assert told.content.startswith("张三您好") and "退款已登记" in told.content


def test_a_refused_refund_tells_the_guest_nothing(desk):
    services.register_refund(order_no="HT20260301001")
    with pytest.raises(Conflict):
        services.register_refund(order_no="HT20260301001")
    assert ChannelMessage.objects.count() == 1


def test_a_refund_proposal_needs_a_refundable_order(desk):
    with pytest.raises(NotFound):
        services.check_refund_proposal(order_no="HT99999999999")
    services.register_refund(order_no="HT20260301001")
    with pytest.raises(Conflict) as caught:
        services.check_refund_proposal(order_no="HT20260301001")
    assert caught.value.code == "refund_exists"
    assert services.check_refund_proposal(order_no=" ht20260301002 ").order_no == "HT20260301002"


def test_a_second_refund_proposal_of_an_order_is_refused_while_the_first_waits(desk):
    from agents.executor import execute
    from agents.registry import ToolContext

    first = execute("refund", {"order_no": "ht20260301002"}, ToolContext(agent=desk))
    with pytest.raises(Conflict) as caught:
        services.check_refund_proposal(order_no="HT20260301002")
    assert (caught.value.code, caught.value.extra["pending_action_id"]) == ("refund_pending", first["pending_action_id"])


def test_refund_register_refuses_an_unknown_order(desk):
    with pytest.raises(NotFound) as caught:
        services.register_refund(order_no="HT99999999999")
    assert (caught.value.code, caught.value.message) == ("order_not_found", "订单不存在")
    assert not Refund.objects.exists()


def test_refund_register_refuses_a_second_refund_of_the_same_order(desk):
    services.register_refund(order_no="HT20260301001")
    with pytest.raises(Conflict) as caught:
        services.register_refund(order_no="HT20260301001")
    assert caught.value.code == "refund_exists"
    assert Refund.objects.count() == 1


def test_the_database_itself_allows_one_refund_per_order(desk):
    order = Order.objects.get(order_no="HT20260301002")
    Refund.objects.create(order=order)
    with pytest.raises(IntegrityError):
        Refund.objects.create(order=order)


def test_refund_complete_marks_a_registered_refund_paid(desk):
    refund = services.register_refund(order_no="HT20260301001")
    done = services.complete_refund(refund_id=refund.pk)
    assert done.status == "completed" and done.completed_at is not None
    with pytest.raises(Conflict) as caught:
        services.complete_refund(refund_id=refund.pk)
    assert caught.value.code == "refund_not_registered"


def test_refund_complete_refuses_an_unknown_refund(desk):
    with pytest.raises(NotFound) as caught:
        services.complete_refund(refund_id=999)
    assert caught.value.code == "refund_not_found"
