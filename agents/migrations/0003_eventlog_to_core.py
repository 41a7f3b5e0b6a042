# EventLog moved to core (core.0001 takes it over in the state); the table and its rows
# stay. Its content type follows, so the permissions staff were given keep their meaning.

from django.db import migrations


def _move_content_type(apps, schema_editor, *, old: str, new: str) -> None:
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    if not ContentType.objects.using(db).filter(app_label=new, model="eventlog").exists():
        ContentType.objects.using(db).filter(app_label=old, model="eventlog").update(app_label=new)


def forwards(apps, schema_editor):
    _move_content_type(apps, schema_editor, old="agents", new="core")


def backwards(apps, schema_editor):
    _move_content_type(apps, schema_editor, old="core", new="agents")


class Migration(migrations.Migration):
    dependencies = [
        ("agents", "0002_autonomy_rounds"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("core", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="EventLog")],
            database_operations=[],
        ),
        migrations.RunPython(forwards, backwards),
    ]
