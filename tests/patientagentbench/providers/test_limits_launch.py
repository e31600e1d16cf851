"""Runaway sizes: the command line refuses what the web form refuses, with the same limits
(runs.limits), before writing anything; trace rows are written a batch at a time."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db.models.query import QuerySet

from jury.forms import MAX_REPEAT
from jury.forms import LaunchForm as JuryLaunchForm
from patientagentbench.models import Run, Suite, Trace
from patientagentbench.runs import launch, limits
from patientagentbench.runs.launch import launch_run
from patientagentbench.views.forms import CaseSetForm, LaunchForm

pytestmark = pytest.mark.django_db


def run_benchmark(*options):
    call_command(
        "run_benchmark", "--suite", "office-19", *options, stdout=StringIO(), stderr=StringIO()
    )


def test_the_web_forms_and_the_command_line_share_the_limits():
    assert LaunchForm.base_fields["repetitions"].max_value == limits.MAX_REPETITIONS
    assert LaunchForm.base_fields["max_iterations"].max_value == limits.MAX_ITERATIONS
    assert LaunchForm.base_fields["max_turns"].max_value == limits.MAX_TURNS
    assert CaseSetForm.base_fields["count"].max_value == limits.MAX_CASES
    assert JuryLaunchForm.base_fields["repeat"].max_value == MAX_REPEAT


@pytest.fixture
def no_trace_rows(monkeypatch):
    """Fail at once if a refused launch starts writing traces (unguarded, a million runs
    would take many gigabytes before failing)."""
    real_bulk_create = QuerySet.bulk_create

    def refuse(self, objs, *args, **kwargs):
        if self.model is Trace:
            raise AssertionError("a refused launch wrote trace rows")
        return real_bulk_create(self, objs, *args, **kwargs)

    monkeypatch.setattr(QuerySet, "bulk_create", refuse)


def test_a_million_runs_is_refused_before_anything_is_written(
    office_suite, sim_models, no_trace_rows
):
    with pytest.raises(CommandError, match="--runs must be between 1 and 100"):
        run_benchmark("--models", "sim-steady", "--runs", "1000000")
    assert not Run.objects.exists() and not Trace.objects.exists()


@pytest.mark.parametrize("runs", ["0", "-3"])
def test_no_runs_is_refused(office_suite, sim_models, runs):
    with pytest.raises(CommandError, match="--runs must be between 1 and 100"):
        run_benchmark("--models", "sim-steady", "--runs", runs)


def test_too_many_iterations_is_refused(office_suite, sim_models, no_trace_rows):
    with pytest.raises(CommandError, match="--max-iterations must be between 1 and 50"):
        run_benchmark("--models", "sim-steady", "--runs", "1", "--max-iterations", "100000")


def test_the_job_count_is_bounded(office_suite, sim_models, no_trace_rows):
    temperatures = ",".join(f"{t / 10:.1f}" for t in range(21))  # 21 temperatures
    with pytest.raises(CommandError, match="19 tasks × 2 models × 21 temperatures × 100 runs"):
        run_benchmark(
            "--models", "sim-steady,sim-jittery", "--runs", "100", "--temperatures", temperatures
        )
    assert not Run.objects.exists()


def test_launch_run_itself_refuses_a_runaway_size(
    office_suite, sim_models, monkeypatch, no_trace_rows
):
    monkeypatch.setattr(limits, "MAX_JOBS", 10)
    with pytest.raises(limits.LaunchTooLarge, match="19 tasks × 1 models"):
        launch_run(suite=office_suite, models=sim_models[:1], repetitions=1, enqueue=False)
    assert not Run.objects.exists()


def test_a_runaway_case_count_is_refused(db, monkeypatch):
    from patientagentbench.management.commands import generate_cases

    def must_not_generate(*args, **kwargs):
        raise AssertionError("a refused case count started generating (unguarded: hours)")

    monkeypatch.setattr(generate_cases, "create_case_set", must_not_generate)
    with pytest.raises(CommandError, match="1 to 2000 cases"):
        call_command("generate_cases", "--count", "1000000", "--seed", "1", "--name", "huge")
    assert not Suite.objects.filter(name="huge").exists()


def test_a_runaway_jury_repeat_is_refused(office_suite, sim_models):
    with pytest.raises(CommandError, match="--repeat must be between 1 and 10"):
        call_command("run_jury", "--run", "1", "--panel", "p", "--repeat", "1000")


def test_trace_rows_are_written_a_batch_at_a_time(office_suite, sim_models, monkeypatch):
    sizes = []
    real_bulk_create = QuerySet.bulk_create

    def recording(self, objs, *args, **kwargs):
        objs = list(objs)
        if self.model is Trace:
            sizes.append(len(objs))
        return real_bulk_create(self, objs, *args, **kwargs)

    monkeypatch.setattr(QuerySet, "bulk_create", recording)
    monkeypatch.setattr(launch, "TRACE_BATCH", 10)
    run = launch_run(suite=office_suite, models=sim_models, repetitions=2, enqueue=False)
    assert sum(sizes) == run.traces.count() == 19 * 2 * 2
    assert max(sizes) == 10 and len(sizes) == 8
