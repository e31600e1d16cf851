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
# What an Inspect sample may carry: one fact a clinician may read, and what they may not.
METADATA = {
    "difficulty": "hard",
    "subtask": "graded by zephyr-quokka-99b",  # an allow-listed key whose value names the model
    "scorer_notes": "SECRET-INSPECT-NOTE",
    "source_sample": "ana-dob",
}


@pytest.fixture
def inspect_study(tmp_path, researcher):
    run = import_traces(make_log(tmp_path, model_name=MODEL, metadata=METADATA)).run
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
    items = [body for where, body in pages.items() if where.startswith("item ")]
    for body in items:  # the task the agent was given, and the one allowed fact
        assert "The task" in body
        assert "When was Ana Silva born?" in body or "When was Bo Chen born?" in body
        assert "<dt>Difficulty</dt><dd>hard</dd>" in body
    forbidden = [*ALWAYS_FORBIDDEN, MODEL, "zephyr-quokka", "mockllm", "inspect_"]
    # Inspect's sample ids, task name, metadata and its tool call ids.
    forbidden += ["ana-dob", "bo-dob", "chart-lookup", "SECRET-INSPECT-NOTE", "for_tool_call"]
    for where, body in pages.items():
        for token in forbidden:
            assert token not in body, f"{token!r} leaked in {where}"
