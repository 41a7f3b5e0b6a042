# EventLog moved here from agents. The table (agents_eventlog) and its rows stay where
# they are: this migration only tells Django's state that the model now lives in core.

from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("agents", "0002_autonomy_rounds"),  # where agents_eventlog is created
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="EventLog",
                    fields=[
                        ("seq", models.BigAutoField(primary_key=True, serialize=False)),
                        ("event", models.CharField(db_index=True, max_length=64, verbose_name="事件")),
                        ("data", models.JSONField(default=dict, verbose_name="数据")),
                        ("created_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="时间")),
                    ],
                    options={
                        "verbose_name": "事件日志",
                        "verbose_name_plural": "事件日志",
                        "ordering": ["seq"],
                        "db_table": "agents_eventlog",
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
