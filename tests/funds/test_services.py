import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.errors import ApplicationError, Conflict, NotFound
from core.models import EventLog
from funds.models import Fund
from funds.services import (
    batch_upsert_funds,
    create_fund,
    disable_fund,
    enable_fund,
    update_fund,
    validate_fund_draft,
)

pytestmark = pytest.mark.django_db


def test_create_trims_the_name_and_starts_at_version_1(staff_user):
    fund = create_fund(fund_name="  Alpha  ", remarks=" first ", user=staff_user)
    fund.refresh_from_db()
    assert (fund.fund_name, fund.remarks, fund.version, fund.active_status) == ("Alpha", "first", 1, "ENABLE")
    assert fund.created_by == staff_user and fund.updated_by == staff_user


@pytest.mark.parametrize(
    ("name", "code"),
    [("", "fund_name_required"), ("   ", "fund_name_required"), ("x" * 101, "fund_name_too_long")],
)
def test_create_refuses_a_bad_name(name, code):
    with pytest.raises(ApplicationError) as caught:
        create_fund(fund_name=name)
    assert caught.value.code == code and caught.value.field == "fund_name"
    assert not Fund.objects.exists()


def test_create_refuses_a_taken_name_whatever_its_case():
    create_fund(fund_name="Alpha")
    with pytest.raises(ApplicationError) as caught:
        create_fund(fund_name="alpha ")
    assert caught.value.code == "fund_name_taken"
    assert Fund.objects.count() == 1


def test_update_bumps_the_version_with_one_conditional_update(staff_user):
    fund = create_fund(fund_name="Alpha")
    with CaptureQueriesContext(connection) as queries:
        updated = update_fund(fund_id=fund.pk, version=1, remarks="new", user=staff_user)
    assert (updated.remarks, updated.version) == ("new", 2)
    writes = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("UPDATE")]
    assert len(writes) == 1 and '"version" = (' in writes[0] and '"version" = 1' in writes[0]


def test_update_with_a_stale_version_is_a_conflict_carrying_the_current_values():
    fund = create_fund(fund_name="Alpha")
    update_fund(fund_id=fund.pk, version=1, remarks="theirs")
    with pytest.raises(Conflict) as caught:
        update_fund(fund_id=fund.pk, version=1, remarks="mine")
    assert caught.value.code == "version_conflict"
    assert caught.value.extra["current"]["remarks"] == "theirs"
    assert caught.value.extra["current"]["version"] == 2
    fund.refresh_from_db()
    assert (fund.remarks, fund.version) == ("theirs", 2)


def test_update_of_a_missing_fund_is_not_found():
    with pytest.raises(NotFound) as caught:
        update_fund(fund_id=999, version=1, remarks="x")
    assert caught.value.code == "fund_not_found"


def test_update_refuses_a_name_taken_by_another_fund():
    create_fund(fund_name="Alpha")
    beta = create_fund(fund_name="Beta")
    with pytest.raises(ApplicationError) as caught:
        update_fund(fund_id=beta.pk, version=1, fund_name="ALPHA")
    assert caught.value.code == "fund_name_taken"


def test_update_may_keep_its_own_name():
    fund = create_fund(fund_name="Alpha")
    assert update_fund(fund_id=fund.pk, version=1, fund_name="Alpha", remarks="r").version == 2


def test_update_without_changes_is_refused():
    fund = create_fund(fund_name="Alpha")
    with pytest.raises(ApplicationError) as caught:
        update_fund(fund_id=fund.pk, version=1)
    assert caught.value.code == "nothing_to_update"


def test_disable_then_enable_each_need_the_current_version():
    fund = create_fund(fund_name="Alpha")
    disabled = disable_fund(fund_id=fund.pk, version=1)
    assert (disabled.active_status, disabled.version) == ("DISABLE", 2)
    with pytest.raises(Conflict):
        enable_fund(fund_id=fund.pk, version=1)
    assert enable_fund(fund_id=fund.pk, version=2).active_status == "ENABLE"


def test_enabling_an_enabled_fund_is_refused():
    fund = create_fund(fund_name="Alpha")
    with pytest.raises(ApplicationError) as caught:
        enable_fund(fund_id=fund.pk, version=1)
    assert caught.value.code == "fund_already_enabled"


def test_validate_lists_every_problem_without_saving():
    create_fund(fund_name="Alpha")
    errors = validate_fund_draft(fund_name="Alpha", remarks="x" * 501)
    assert set(errors) == {"fund_name", "remarks"}
    assert validate_fund_draft(fund_name="Gamma", remarks="") == {}
    assert Fund.objects.count() == 1


def test_validate_of_an_edit_ignores_the_fund_itself():
    fund = create_fund(fund_name="Alpha")
    assert validate_fund_draft(fund_name="alpha", fund_id=fund.pk) == {}


def test_batch_upsert_creates_and_updates_together():
    alpha = create_fund(fund_name="Alpha")
    saved = batch_upsert_funds(
        rows=[{"fund_name": "Beta"}, {"id": alpha.pk, "version": 1, "remarks": "edited", "active_status": "DISABLE"}]
    )
    assert [f.fund_name for f in saved] == ["Beta", "Alpha"]
    alpha.refresh_from_db()
    assert (alpha.remarks, alpha.active_status, alpha.version) == ("edited", "DISABLE", 2)


def test_batch_upsert_rolls_back_every_row_when_one_is_bad():
    alpha = create_fund(fund_name="Alpha")
    with pytest.raises(ApplicationError) as caught:
        batch_upsert_funds(
            rows=[
                {"fund_name": "Beta"},
                {"id": alpha.pk, "version": 1, "remarks": "edited"},
                {"fund_name": "beta"},
            ]
        )
    assert caught.value.code == "fund_name_taken"
    assert caught.value.extra["row"] == 3 and "3" in caught.value.message
    assert list(Fund.objects.values_list("fund_name", flat=True)) == ["Alpha"]
    alpha.refresh_from_db()
    assert (alpha.remarks, alpha.version) == ("", 1)


def test_batch_upsert_needs_the_version_of_an_updated_row():
    alpha = create_fund(fund_name="Alpha")
    with pytest.raises(ApplicationError) as caught:
        batch_upsert_funds(rows=[{"id": alpha.pk, "remarks": "x"}])
    assert caught.value.code == "version_required" and caught.value.extra["row"] == 1


def test_fund_changed_is_broadcast_after_commit_only(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        fund = create_fund(fund_name="Alpha")
        update_fund(fund_id=fund.pk, version=1, remarks="r")
    events = list(EventLog.objects.filter(event="fund_changed").order_by("seq").values_list("data", flat=True))
    assert [(e["fund_id"], e["fund_name"], e["version"], e["change"]) for e in events] == [
        (fund.pk, "Alpha", 1, "created"),
        (fund.pk, "Alpha", 2, "updated"),
    ]
    assert events[0]["active_status"] == "ENABLE"


def test_a_rolled_back_batch_broadcasts_nothing(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(ApplicationError):
        batch_upsert_funds(rows=[{"fund_name": "Beta"}, {"fund_name": ""}])
    assert not EventLog.objects.filter(event="fund_changed").exists()
