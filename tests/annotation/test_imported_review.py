"""Imported transcripts reach blinded review (issue 33): the study and round forms offer an
imported run, labelled as imported, and accept its trace ids; the sampler's filters read an
imported task's own category; a clinician's page of an imported item shows the task and the
conversation, with no empty patient boxes and nothing that identifies the model or the task.

JSONL imports here (no optional extra needed); tests/annotation/test_blinding_inspect.py does
the same for an Inspect AI log."""

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, Study
from annotation.reviewing import dimensions_of, rubric_of
from annotation.studies import StudySpec, create_study
from patientagentbench.interchange.importer import import_bytes
from tests.annotation.test_research_views import make_clinician, twelve_conversations
from tests.patientagentbench.interchange.test_import_validation import jsonl

pytestmark = pytest.mark.django_db
MODEL = "zephyr-quokka-99b"
TASK_ID = "quokka-task-4411"
PROMPT = "Find the <b>discharge</b> letter of Ana Silva."


def import_run(n: int = 3, **changes):
    """An imported run of `n` repetitions of one task without a case."""
    fields = {"model": MODEL, "task_id": TASK_ID, "prompt": PROMPT, "attributes": {}, **changes}
    raw = b"".join(jsonl(repetition=i, **fields) for i in range(n))
    return import_bytes(raw, "imported.jsonl").run


def ids_of(run) -> list[int]:
    return list(run.traces.order_by("pk").values_list("pk", flat=True))


def study_post(run, clinician, **fields) -> dict:
    return {
        "name": "Imported pilot",
        "runs": [run.pk],
        "n_items": 3,
        "seed": 1,
        "overlap_clinical": 1,
        "overlap_operations": 0,
        "reference_percent": 0,
        "clinicians": [clinician.pk],
        "adjudication_threshold": 2,
        **fields,
    }


def test_the_study_form_offers_an_imported_run_as_imported_and_samples_it(client, researcher):
    run = import_run(category="records")
    clinician = make_clinician("imp")
    client.force_login(researcher)
    form = client.get(reverse("research_study_new")).content.decode()
    assert f"Run {run.pk} · imported · " in form
    assert 'value="records"' in form, "the task's own category is a filter choice"
    # No imported task carries a subtask or severity: no empty filter for them.
    assert 'name="subtask"' not in form and 'name="severity"' not in form
    response = client.post(
        reverse("research_study_new"), study_post(run, clinician, category=["records"])
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    study = Study.objects.get(name="Imported pilot")
    assert sorted(study.items.values_list("trace_id", flat=True)) == ids_of(run)


def test_the_round_form_accepts_the_trace_ids_of_an_imported_run(client, researcher):
    run = import_run()
    # Two clinicians: with one, the round could qualify nobody and the form refuses it.
    clinicians = [make_clinician("imp-round"), make_clinician("imp-round-2")]
    client.force_login(researcher)
    response = client.post(
        reverse("research_round_new"),
        {
            "name": "Imported round",
            "source": "explicit",
            "trace_ids": " ".join(map(str, ids_of(run))),
            "seed": 1,
            "clinicians": [c.pk for c in clinicians],
            "feedback": "end",
            "min_exact": 0.5,
            "min_adjacent": 0.8,
            "min_alpha": 0.4,
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    round_ = Study.objects.get(name="Imported round", kind=Study.Kind.CALIBRATION)
    assert sorted(round_.items.values_list("trace_id", flat=True)) == ids_of(run)


def test_only_finished_traces_of_an_imported_run_are_accepted(client, researcher):
    run = import_run(n=2)
    errored = import_run(n=1, status="error", error="boom", task_id="other", suite="s2")
    clinicians = [make_clinician("imp-err"), make_clinician("imp-err-2")]
    client.force_login(researcher)
    wanted = ids_of(run) + ids_of(errored)
    response = client.post(
        reverse("research_round_new"),
        {
            "name": "Errored round",
            "source": "explicit",
            "trace_ids": " ".join(map(str, wanted)),
            "seed": 1,
            "clinicians": [c.pk for c in clinicians],
            "feedback": "end",
            "min_exact": 0.5,
            "min_adjacent": 0.8,
            "min_alpha": 0.4,
        },
    )
    assert response.status_code == 200
    assert f"already used in a study: {ids_of(errored)[0]}" in response.content.decode()
    assert not Study.objects.filter(name="Errored round").exists()


def test_scenario_runs_keep_their_label_without_imported(client, researcher, sim_models):
    launched = twelve_conversations(sim_models)
    client.force_login(researcher)
    form = client.get(reverse("research_study_new")).content.decode()
    assert f"Run {launched.pk} · research-cases" in form


@pytest.fixture
def imported_item(researcher):
    metadata = {
        "difficulty": "hard",  # allow-listed
        "subtask": f"graded against {MODEL}",  # allow-listed key, but names the model
        "grader": "SECRET-GRADER-NOTE",  # not allow-listed
    }
    run = import_run(
        n=1, attributes={"inspect_metadata": metadata}, category=TASK_ID, difficulty=""
    )
    me = make_clinician("dr-imported", "both")
    me.onboarded_at = timezone.now()
    me.save(update_fields=["onboarded_at"])
    study = create_study(
        StudySpec(name="Imported study", overlap={"clinical": 1}, status="open"),
        ids_of(run),
        [me],
        researcher,
    )
    return me, study.items.get().assignments.get()


def test_the_review_page_of_an_imported_item_shows_the_task_and_the_conversation(
    client, imported_item
):
    me, assignment = imported_item
    client.force_login(me.user)
    body = client.get(reverse("review_item", args=[assignment.code])).content.decode()
    assert 'data-testid="task-box"' in body and "The task" in body
    assert "Find the &lt;b&gt;discharge&lt;/b&gt; letter of Ana Silva." in body  # escaped
    assert "lookup" in body and "Found." in body  # the conversation, its tool call
    assert "<dt>Difficulty</dt><dd>hard</dd>" in body
    # No empty patient boxes: the page says what there is instead.
    assert "No chart for this conversation" not in body
    assert "What the patient wants" not in body
    assert "No patient chart or story comes with this conversation" in body
    for token in (MODEL, "zephyr", TASK_ID, "SECRET-GRADER-NOTE", "inspect_metadata", "Subtask"):
        assert token not in body, f"{token!r} leaked"


def test_an_imported_item_is_scored_like_any_other(client, imported_item):
    me, assignment = imported_item
    client.force_login(me.user)
    dimensions = dimensions_of(assignment, rubric_of(assignment.item.study))
    scores = {f"score-{d.key}": "4" for d in dimensions}
    response = client.post(
        reverse("review_submit", args=[assignment.code]), {**scores, "nonce": "imported-1"}
    )
    assert response.status_code == 302
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert set(assignment.submissions.get().scores.values()) == {4}
