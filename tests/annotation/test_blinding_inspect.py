"""Blinding holds for transcripts brought from Inspect AI: a clinician reviewing an imported
Inspect run never sees its model, Inspect's scores or metadata, on any page they can reach."""

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.studies import StudySpec, create_study
from patientagentbench.interchange.importer import import_traces
from patientagentbench.models import Trace
from tests.annotation.test_blinding import ALWAYS_FORBIDDEN, _clinician, crawl
from tests.patientagentbench.interchange.inspect_logs import make_log

pytestmark = pytest.mark.django_db
MODEL = "mockllm/zephyr-quokka-99b"


@pytest.fixture
def inspect_study(tmp_path, researcher):
    run = import_traces(make_log(tmp_path, model_name=MODEL)).run
    traces = list(run.traces.filter(status=Trace.Status.DONE).values_list("pk", flat=True))
    me = _clinician("dr-inspect", "both")
    me.onboarded_at = timezone.now()  # past the one-screen introduction
    me.save(update_fields=["onboarded_at"])
    study = create_study(
        StudySpec(name="Chart lookups", overlap={"clinical": 1, "operations": 1}, status="open"),
        traces[:4],
        [me],
        researcher,
    )
    return me, study


def test_an_imported_inspect_run_reveals_nothing_to_a_clinician(client, inspect_study):
    me, _study = inspect_study
    client.force_login(me.user)
    pages = crawl(client, reverse("review_home"))
    for assignment in me.assignments.all():
        pages[f"item {assignment.code}"] = client.get(
            reverse("review_item", args=[assignment.code]), follow=True
        ).content.decode()
    assert any("lookup_patient" in body for body in pages.values()), "the transcript is shown"
    forbidden = [*ALWAYS_FORBIDDEN, MODEL, "zephyr-quokka", "mockllm", "inspect_"]
    for where, body in pages.items():
        for token in forbidden:
            assert token not in body, f"{token!r} leaked in {where}"
