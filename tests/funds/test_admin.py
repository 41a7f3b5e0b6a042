import pytest

from funds.models import Fund
from funds.services import create_fund, update_fund

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "pw"))
    return client


def test_add_goes_through_the_service(admin_client):
    response = admin_client.post("/admin/funds/fund/add/", {"fund_name": "  Alpha ", "remarks": "r"})
    assert response.status_code == 302
    fund = Fund.objects.get()
    assert (fund.fund_name, fund.created_by.username, fund.version) == ("Alpha", "root", 1)


def test_add_shows_the_services_error_inline(admin_client):
    create_fund(fund_name="Alpha")
    response = admin_client.post("/admin/funds/fund/add/", {"fund_name": "alpha", "remarks": ""})
    assert response.status_code == 200 and "基金名称「alpha」已存在" in response.content.decode()
    assert Fund.objects.count() == 1


def test_edit_based_on_a_stale_version_is_refused_with_the_current_values(admin_client):
    fund = create_fund(fund_name="Alpha")
    update_fund(fund_id=fund.pk, version=1, remarks="someone else")
    response = admin_client.post(
        f"/admin/funds/fund/{fund.pk}/change/", {"fund_name": "Alpha", "remarks": "mine", "version_read": 1}
    )
    assert response.status_code == 200 and "someone else" in response.content.decode()
    fund.refresh_from_db()
    assert (fund.remarks, fund.version) == ("someone else", 2)


def test_edit_with_the_current_version_bumps_it(admin_client):
    fund = create_fund(fund_name="Alpha")
    response = admin_client.post(
        f"/admin/funds/fund/{fund.pk}/change/", {"fund_name": "Alpha", "remarks": "mine", "version_read": 1}
    )
    assert response.status_code == 302
    fund.refresh_from_db()
    assert (fund.remarks, fund.version, fund.updated_by.username) == ("mine", 2, "root")


def test_disable_action_and_no_delete(admin_client):
    fund = create_fund(fund_name="Alpha")
    asked = admin_client.post("/admin/funds/fund/", {"action": "disable_selected", "_selected_action": [fund.pk]})
    assert f"「Alpha」（#{fund.pk}）：停用" in asked.content.decode()
    fund.refresh_from_db()
    assert fund.active_status == "ENABLE"  # only asked so far
    admin_client.post("/admin/funds/fund/", {"action": "disable_selected", "_selected_action": [fund.pk], "post": "yes"})
    fund.refresh_from_db()
    assert fund.active_status == "DISABLE"
    assert admin_client.post(f"/admin/funds/fund/{fund.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Fund.objects.filter(pk=fund.pk).exists()
