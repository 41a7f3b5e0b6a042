# The time zone a staff member chose for the pages (empty: TIME_ZONE); validated in core.services.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('core', '0003_event_outbox'),
    ]

    operations = [
        migrations.AddField(
            model_name='userpreference',
            name='time_zone',
            field=models.CharField(blank=True, default='', max_length=64, verbose_name='时区'),
        ),
    ]
