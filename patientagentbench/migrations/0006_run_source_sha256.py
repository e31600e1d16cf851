from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("patientagentbench", "0005_claims_and_output_limit"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="source_sha256",
            field=models.CharField(blank=True, db_index=True, max_length=64),
        ),
    ]
