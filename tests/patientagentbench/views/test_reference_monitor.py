"""Reference traces set from a run, later traces checked against them, and the run page's
monitor: what it flags, the risk ratio it computes, who may set a reference."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from patientagentbench.analysis.reference_traces import choose_reference, risk_ratio
from patientagentbench.models import ReferenceTrace, Run, Trace
from patientagentbench.results.references import (
    deviating_trace_ids,
    monitor,
    names_of,
    set_references,
)
from patientagentbench.runs.launch import launch_run
from tests.finished_runs import simulated_run

pytestmark = pytest.mark.django_db


def crafted_run(suite, models, outcomes, temperature=1.0) -> Run:
    """A finished run of one task whose repetitions made the given (tool names, correct)."""
    run = launch_run(
        suite=suite,
        models=models[:1],
        tasks=list(suite.tasks.order_by("task_id")[:1]),
        repetitions=len(outcomes),
        temperatures=[temperature],
        enqueue=False,
    )
    for trace, (names, correct) in zip(run.traces.order_by("repetition"), outcomes, strict=True):
        trace.status, trace.correct = Trace.Status.DONE, correct
        trace.tool_calls = [{"name": name, "arguments": {}} for name in names]
        trace.save()
    Run.objects.filter(pk=run.pk).update(status=Run.Status.FINISHED)
    run.refresh_from_db()
    return run


MAIN = ["search", "send"]


def test_each_cell_gets_the_medoid_of_its_repetitions(office_suite, sim_models):
    run = simulated_run(suite=office_suite, models=sim_models, repetitions=3)
    outcome = set_references(run)
    references = ReferenceTrace.objects.all()
    assert outcome["set"] == references.count() == run.cell_metrics.count()
    for reference in references:
        members = run.traces.filter(
            task__task_id=reference.task_key,
            model_name=reference.model_name,
            temperature=reference.temperature,
        )
        sequences = [names_of(t.tool_calls) for t in members]
        assert tuple(reference.sequence) == choose_reference(sequences).sequence
        assert reference.chosen["trace_ids"] == sorted(t.pk for t in members)


def test_setting_a_reference_again_replaces_the_cells_reference(office_suite, sim_models):
    first = crafted_run(office_suite, sim_models, [(MAIN, True)] * 3)
    second = crafted_run(office_suite, sim_models, [(["send"], True)] * 3)
    set_references(first)
    set_references(second)
    (reference,) = ReferenceTrace.objects.all()
    assert reference.run == second and reference.sequence == ["send"]


def test_a_cell_with_one_finished_repetition_is_skipped(office_suite, sim_models):
    run = crafted_run(office_suite, sim_models, [(MAIN, True)])
    outcome = set_references(run)
    assert outcome["set"] == 0 and len(outcome["skipped"]) == 1
    assert not ReferenceTrace.objects.exists()


def test_a_later_run_is_checked_against_the_reference(office_suite, sim_models):
    set_references(crafted_run(office_suite, sim_models, [(MAIN, True)] * 4 + [(["x"], True)]))
    # 12 follow it (1 fails), 12 leave it: 6 at step 1 (4 fail), 6 at step 3 (2 fail).
    later = crafted_run(
        office_suite,
        sim_models,
        [(MAIN, True)] * 11
        + [(MAIN, False)]
        + [(["send", "search"], i >= 4) for i in range(6)]
        + [([*MAIN, "send"], i >= 2) for i in range(6)],
    )
    found = monitor(later)
    assert (found["checked"], found["n_deviating"], found["n_first_two_differ"]) == (24, 12, 6)
    assert not found["in_sample"]
    assert found["risk"] == risk_ratio(6, 12, 1, 12)
    assert found["risk_first_two"] == risk_ratio(4, 6, 3, 18)  # 6 < 10: not enough evidence
    assert found["risk_first_two"]["reason"].startswith("not enough evidence")
    assert found["early_share"]["early"] == 6 and found["early_share"]["n"] == 12
    assert sorted(deviating_trace_ids(later)) == sorted(c.trace.pk for c in found["deviating"])


def test_a_reference_holds_for_its_own_temperature_only(office_suite, sim_models):
    set_references(crafted_run(office_suite, sim_models, [(MAIN, True)] * 3, temperature=0.0))
    other = crafted_run(office_suite, sim_models, [(["send"], True)] * 3, temperature=1.0)
    assert monitor(other)["checked"] == 0


def test_the_reference_run_itself_is_marked_in_sample(office_suite, sim_models):
    run = crafted_run(office_suite, sim_models, [(MAIN, True)] * 3)
    set_references(run)
    assert monitor(run)["in_sample"]


def test_the_run_page_sets_a_reference_and_flags_deviating_traces(
    client, researcher, office_suite, sim_models
):
    client.force_login(researcher)
    reference_run = crafted_run(office_suite, sim_models, [(MAIN, True)] * 3)
    page = client.get(reverse("run_detail", args=[reference_run.pk])).content.decode()
    assert "No reference tool sequence" in page and "Set this run as the reference" in page
    response = client.post(reverse("run_set_reference", args=[reference_run.pk]), follow=True)
    assert "is the reference of 1 cell" in response.content.decode()

    later = crafted_run(office_suite, sim_models, [(MAIN, True), (["send"], False)])
    deviating = later.traces.get(repetition=1)
    Run.objects.filter(pk=later.pk).update(status=Run.Status.RUNNING)
    live = client.get(reverse("run_detail", args=[later.pk]), headers={"HX-Request": "true"})
    body = live.content.decode()
    assert live.status_code == 200
    assert body.count('data-testid="deviating-row"') == 1
    assert reverse("trace_detail", args=[deviating.pk]) in body
    assert "not enough evidence: 1 deviating and 1 matching" in body
    assert "nearly three times" in body and "60%" in body
    # A live run's repetitions are not all in: it cannot become the reference.
    assert "Set this run as the reference" not in body
    refused = client.post(reverse("run_set_reference", args=[later.pk]), follow=True)
    assert "once the run has finished" in refused.content.decode()
    assert ReferenceTrace.objects.get().run == reference_run


def test_deviating_output_is_escaped(client, researcher, office_suite, sim_models):
    set_references(crafted_run(office_suite, sim_models, [(MAIN, True)] * 2))
    later = crafted_run(office_suite, sim_models, [(["<script>x</script>"], False)])
    client.force_login(researcher)
    body = client.get(reverse("run_detail", args=[later.pk])).content.decode()
    assert 'data-testid="deviating-row"' in body and "<script>x</script>" not in body


@pytest.mark.parametrize("persona", ["clinician", "outsider"])
def test_only_staff_may_set_a_reference(client, request, persona, office_suite, sim_models):
    run = crafted_run(office_suite, sim_models, [(MAIN, True)] * 2)
    client.force_login(request.getfixturevalue(persona))
    assert client.post(reverse("run_set_reference", args=[run.pk])).status_code == 403
    assert not ReferenceTrace.objects.exists()


def test_the_command_sets_and_checks(office_suite, sim_models, capsys):
    run = crafted_run(office_suite, sim_models, [(MAIN, True)] * 3)
    call_command("set_reference", "--run", str(run.pk))
    call_command("set_reference", "--run", str(run.pk), "--check")
    out = capsys.readouterr().out
    assert f"Run {run.pk} is the reference of 1 cells." in out
    assert "3 traces checked against 1 references, 0 left them" in out
    assert "In-sample" in out and "not enough evidence" in out


def test_the_monitor_asks_as_many_queries_however_many_traces(
    client, researcher, office_suite, sim_models
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    set_references(crafted_run(office_suite, sim_models, [(MAIN, True)] * 2))
    smaller = crafted_run(office_suite, sim_models, [(["send"], False)] * 2)
    bigger = crafted_run(office_suite, sim_models, [(["send"], False), (MAIN, True)] * 6)
    client.force_login(researcher)
    counts = []
    for run in (smaller, bigger):
        with CaptureQueriesContext(connection) as queries:
            client.get(reverse("run_detail", args=[run.pk]))
        counts.append(len(queries))
    assert counts[0] == counts[1]
