"""Admin: orders searchable, messages filterable by channel and read flag, refunds completed by action."""

import pytest

from orders import services
from orders.models import ChannelMessage, Refund

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "pw-root-123"))
    return client


def test_orders_are_searchable_by_order_number_and_guest(admin_client, desk):
    by_guest = admin_client.get("/admin/orders/order/", {"q": "李四"}).content.decode()
    assert "HT20260301002" in by_guest and "HT20260301001" not in by_guest
    by_number = admin_client.get("/admin/orders/order/", {"q": "HT20260301003"}).content.decode()
    assert "王五" in by_number and "张三" not in by_number


def test_order_change_page_shows_its_refund(admin_client, desk):
    refund = services.register_refund(order_no="HT20260301001")
    response = admin_client.get(f"/admin/orders/order/{refund.order_id}/change/")
    assert response.status_code == 200 and "已登记" in response.content.decode()


def test_messages_filter_by_channel_and_read(admin_client, desk):
    services.send_message(channel="upstream", content="上游未读")
    services.send_message(channel="downstream", content="下游已读")
    ChannelMessage.objects.filter(channel="downstream").update(read=True)
    upstream = admin_client.get("/admin/orders/channelmessage/", {"channel": "upstream"}).content.decode()
    assert "上游未读" in upstream and "下游已读" not in upstream
    read = admin_client.get("/admin/orders/channelmessage/", {"read__exact": "1"}).content.decode()
    assert "下游已读" in read and "上游未读" not in read


def test_mark_read_action_uses_the_service(admin_client, desk):
    message = services.send_message(channel="upstream", content="a")
    response = admin_client.post(
        "/admin/orders/channelmessage/", {"action": "mark_read", "_selected_action": [message.pk]}, follow=True
    )
    assert response.status_code == 200
    message.refresh_from_db()
    assert message.read


def test_messages_and_refunds_are_not_written_by_hand(admin_client, desk):
    message = services.send_message(channel="upstream", content="a")
    refund = services.register_refund(order_no="HT20260301001")
    assert admin_client.get("/admin/orders/channelmessage/add/").status_code == 403
    assert admin_client.get("/admin/orders/refund/add/").status_code == 403
    assert admin_client.post(f"/admin/orders/refund/{refund.pk}/delete/", {"post": "yes"}).status_code == 403
    assert admin_client.post(f"/admin/orders/channelmessage/{message.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Refund.objects.count() == 1 and ChannelMessage.objects.count() == 2  # the message and the guest notice


def test_complete_action_marks_refunds_paid_and_reports_refusals(admin_client, desk):
    first = services.register_refund(order_no="HT20260301001")
    done = services.complete_refund(refund_id=services.register_refund(order_no="HT20260301002").pk)
    response = admin_client.post(
        "/admin/orders/refund/", {"action": "complete", "_selected_action": [first.pk, done.pk]}, follow=True
    )
    page = response.content.decode()
    assert "1 笔退款已标记为已退款" in page
    assert "只有已登记的退款才能标记为已退款" in page
    assert set(Refund.objects.values_list("status", flat=True)) == {"completed"}
