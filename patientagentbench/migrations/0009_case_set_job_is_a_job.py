# A case-set generation is a Job like a trace or a judge job (issue 18): it gains the job's
# key and cost, and "failed" becomes the jobs' "error". Existing rows keep their data; each
# gets the key of what it generated, the later of two identical requests with its id added.

from decimal import Decimal

from django.db import migrations, models


def key_for(job) -> str:
    return f"case-set:{job.name}:{job.count}:{job.seed}:{job.writer}"


def keys_and_error_status(apps, schema_editor):
    CaseSetJob = apps.get_model("patientagentbench", "CaseSetJob")
    seen = set()
    for job in CaseSetJob.objects.order_by("pk"):
        key = key_for(job)
        job.key = key if key not in seen else f"{key}:{job.pk}"
        seen.add(key)
        job.status = "error" if job.status == "failed" else job.status
        job.save(update_fields=["key", "status"])


def failed_status(apps, schema_editor):
    CaseSetJob = apps.get_model("patientagentbench", "CaseSetJob")
    CaseSetJob.objects.filter(status="error").update(status="failed")


class Migration(migrations.Migration):

    dependencies = [
        ("patientagentbench", "0008_patient_rejected_attempts"),
    ]

    operations = [
        migrations.AddField(
            model_name="casesetjob",
            name="cost",
            field=models.DecimalField(decimal_places=6, default=Decimal(0), max_digits=14),
        ),
        migrations.AddField(
            model_name="casesetjob",
            name="key",
            field=models.CharField(default="", max_length=400),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="casesetjob",
            name="status",
            field=models.CharField(
                choices=[
                    ("queued", "Queued"),
                    ("running", "Running"),
                    ("done", "Done"),
                    ("error", "Error"),
                    ("cancelled", "Cancelled"),
                ],
                default="queued",
                max_length=16,
            ),
        ),
        migrations.RunPython(keys_and_error_status, failed_status),
        migrations.AlterField(
            model_name="casesetjob",
            name="key",
            field=models.CharField(max_length=400, unique=True),
        ),
        migrations.AlterField(
            model_name="casesetjob",
            name="worker",
            field=models.CharField(blank=True, max_length=255),
        ),
    ]
