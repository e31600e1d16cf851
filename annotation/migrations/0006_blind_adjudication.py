from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0005_study_lifecycle_and_qualification"),
    ]

    operations = [
        migrations.AddField(
            model_name="study",
            name="blind_adjudication",
            field=models.BooleanField(default=False),
        ),
    ]
