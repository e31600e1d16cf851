"""Existing data keep their rubric through the migrations that let a team bring its own
(issue 36 item 2): a panel's v1 rubric is untouched forwards, and back again."""

import pytest
from django.db import connection

from tests.migrating import back_to_the_latest, migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("jury", "0010_jury_run_call_limit")]
AFTER = [("jury", "0012_stored_rubrics")]


def test_panels_keep_their_rubric_forwards_and_back():
    with back_to_the_latest():
        old = migrate(BEFORE).get_model("jury", "Panel")
        panel = old.objects.create(name="v1-panel")
        assert (panel.rubric_name, panel.rubric_version) == ("patientagentbench", "1")

        apps = migrate(AFTER)
        kept = apps.get_model("jury", "Panel").objects.get(pk=panel.pk)
        assert (kept.rubric_name, kept.rubric_version) == ("patientagentbench", "1")
        stored = apps.get_model("jury", "StoredRubric")
        stored.objects.create(name="team", version=1, data={"name": "team"}, fingerprint="f")

        back = migrate(BEFORE)
        assert back.get_model("jury", "Panel").objects.get(pk=panel.pk).name == "v1-panel"
        assert "jury_storedrubric" not in connection.introspection.table_names()
