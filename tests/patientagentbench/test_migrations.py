"""Migrations keep existing data (issue 18): rows written before a migration, read after it."""

import pytest

from tests.migrating import back_to_the_latest, migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("patientagentbench", "0008_patient_rejected_attempts")]
AFTER = [("patientagentbench", "0009_case_set_job_is_a_job")]


def test_case_set_jobs_become_jobs_keeping_their_data():
    with back_to_the_latest():
        old = migrate(BEFORE).get_model("patientagentbench", "CaseSetJob")
        done = old.objects.create(name="set-a", count=5, seed=1, status="done", attempts=1)
        failed = old.objects.create(name="set-b", count=5, seed=1, status="failed", error="boom")
        again = old.objects.create(name="set-b", count=5, seed=1, status="queued")

        new = migrate(AFTER).get_model("patientagentbench", "CaseSetJob")
        rows = {row.pk: row for row in new.objects.all()}
        assert (rows[done.pk].status, rows[done.pk].attempts) == ("done", 1)
        assert (rows[failed.pk].status, rows[failed.pk].error) == ("error", "boom")
        assert rows[failed.pk].key == "case-set:set-b:5:1:template"
        assert rows[again.pk].key == f"case-set:set-b:5:1:template:{again.pk}"
        assert rows[done.pk].cost == 0

        old = migrate(BEFORE).get_model("patientagentbench", "CaseSetJob")  # and back
        assert old.objects.get(pk=failed.pk).status == "failed"
