"""Runs as jobs: planning, claiming, executing, finishing, cancelling, resuming."""

from decimal import Decimal

import pytest

from patientagentbench.models import ModelConfig, Run, Trace
from patientagentbench.runs.execution import execute_trace, progress
from patientagentbench.runs.launch import cancel_run, execute_inline, launch_run, resume_run

pytestmark = pytest.mark.django_db


def _launch(suite, models, **kwargs):
    kwargs.setdefault("repetitions", 2)
    kwargs.setdefault(
        "tasks", list(suite.tasks.filter(task_id__in=["retrieve-001", "compute-001"]))
    )
    return launch_run(suite=suite, models=models, enqueue=False, **kwargs)


def test_launch_plans_one_job_per_task_model_temperature_repetition(office_suite, sim_models):
    run = _launch(office_suite, sim_models, repetitions=3, temperatures=[0.0, 1.0])
    assert run.traces.count() == 2 * 2 * 2 * 3
    assert len(set(run.traces.values_list("key", flat=True))) == 24
    assert progress(run.pk)["queued"] == 24


def test_inline_run_finishes_with_traces_metrics_and_correctness(office_suite, sim_models):
    run = _launch(office_suite, sim_models)
    execute_inline(run)
    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED
    trace = run.traces.get(task__task_id="retrieve-001", model_name="sim-steady", repetition=0)
    assert trace.status == Trace.Status.DONE
    assert trace.messages[0]["role"] == "system"
    assert trace.messages[1] == {**trace.messages[1], "role": "user", "content": trace.task.prompt}
    assert [c["id"] for c in trace.tool_calls] == [
        f"t{i}" for i in range(1, len(trace.tool_calls) + 1)
    ]
    assert trace.correctness is not None and trace.correctness["checks"]
    assert trace.final_state and trace.tokens_in > 0
    assert run.cell_metrics.count() == 2 * 2  # tasks × models at one temperature


def test_a_job_delivered_twice_runs_once(office_suite, sim_models):
    run = _launch(office_suite, sim_models[:1], repetitions=1)
    trace = run.traces.first()
    execute_trace(trace.pk)
    first = Trace.objects.get(pk=trace.pk)
    execute_trace(trace.pk)  # the same message delivered again
    again = Trace.objects.get(pk=trace.pk)
    assert again.attempts == 1
    assert again.messages == first.messages
    assert Trace.objects.filter(run=run).count() == 2


def test_same_job_same_behaviour_across_runs(office_suite, sim_models):
    first = _launch(office_suite, sim_models[1:], repetitions=3)
    second = _launch(office_suite, sim_models[1:], repetitions=3)
    execute_inline(first)
    execute_inline(second)

    def calls(run):
        return [
            [(c["name"], c["raw_arguments"]) for c in t.tool_calls]
            for t in run.traces.order_by("task__task_id", "repetition")
        ]

    assert calls(first) == calls(second)


def test_cancel_stops_queued_jobs_and_resume_runs_them(office_suite, sim_models):
    run = _launch(office_suite, sim_models)
    done = run.traces.first()
    execute_trace(done.pk)
    assert cancel_run(run.pk)
    counts = progress(run.pk)
    assert counts["cancelled"] == counts["total"] - 1
    execute_inline(run)  # nothing is queued; a stray delivery does nothing
    assert progress(run.pk)["done"] == 1

    requeued = resume_run(run.pk)
    assert requeued == counts["total"] - 1
    execute_inline(run)
    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED
    assert progress(run.pk)["done"] == counts["total"]
    assert Trace.objects.get(pk=done.pk).attempts == 1  # what was done was kept


def test_spend_limit_stops_the_run(office_suite, db):
    priced = ModelConfig.objects.create(
        name="sim-priced",
        provider="simulated",
        model_id="sim-steady",
        price_in=Decimal("100000"),
        price_out=Decimal("100000"),
    )
    run = _launch(office_suite, [priced], spend_limit=Decimal("1"))
    execute_inline(run)
    run.refresh_from_db()
    assert run.status == Run.Status.STOPPED
    assert run.spent >= Decimal("1")
    counts = progress(run.pk)
    assert counts["done"] + counts["cancelled"] == counts["total"]
    assert counts["cancelled"] >= 1


def test_provider_failure_ends_as_error_trace_with_the_error_kept(office_suite, db):
    broken = ModelConfig.objects.create(
        name="no-key", provider="openai", model_id="gpt-x", api_key_env="PAB_TEST_UNSET_KEY"
    )
    run = _launch(office_suite, [broken], repetitions=1)
    execute_inline(run)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    trace = run.traces.first()
    assert trace.status == Trace.Status.ERROR
    assert "PAB_TEST_UNSET_KEY" in trace.error


def test_the_run_that_finishes_has_its_analysis_computed_at_once(
    office_suite, sim_models, django_capture_on_commit_callbacks
):
    """The worker ending a run computes its analysis, so the report's first visitor finds it
    cached."""
    from django.core.cache import cache

    from patientagentbench.results.study import DEFAULT_MALFORMED, analysis_key

    run = _launch(office_suite, sim_models[:1])
    entry = f"analysis:{run.pk}:{DEFAULT_MALFORMED}"
    with django_capture_on_commit_callbacks(execute=False) as finishing:
        execute_inline(run)
    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED
    assert cache.get(f"{entry}:{analysis_key(run)}") is None  # not before the run commits
    for callback in finishing:
        callback()
    cached = cache.get(f"{entry}:{analysis_key(run)}")
    assert cached is not None and cached["n_cells"] == 2
    assert "error" not in cached["statistics"] and cached["figure_json"]
