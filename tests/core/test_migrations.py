"""EventLog moved from agents to core without touching its table or rows."""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("agents", "0002_autonomy_rounds"), ("core", None)]
AFTER = [("agents", "0003_eventlog_to_core"), ("core", "0001_initial")]


@pytest.mark.django_db(transaction=True)
def test_stored_events_survive_the_move_to_core():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state([BEFORE[0]]).apps
    seq = old.get_model("agents", "EventLog").objects.create(event="bounty_created", data={"bounty_id": 4}).seq
    ContentType.objects.filter(app_label="core", model="eventlog").delete()
    ContentType.objects.get_or_create(app_label="agents", model="eventlog")

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps
    row = new.get_model("core", "EventLog").objects.get(seq=seq)
    assert (row.event, row.data) == ("bounty_created", {"bounty_id": 4})
    assert ContentType.objects.filter(app_label="core", model="eventlog").exists()
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())  # leave the schema as the other tests expect
