"""One exit-code rule for every `--wait` command, run in this process through call_command:
0 only when every job finished without an error, 1 when any errored or was cancelled, 2 when
no worker runs (tests/patientagentbench/runs/test_recovery.py, tests/jury/test_commands.py)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from jury import scoring
from jury.models import JuryRun
from patientagentbench.models import ModelConfig, Run, Trace
from patientagentbench.runs import execution, jobs
from tests.fakes.llm_server import OPENAI, FakeLLMServer, error_reply
from tests.jury.conftest import make_panel, scenario_run, simulated_model, two_judge_panel

pytestmark = pytest.mark.django_db(transaction=True)
TASKS = "retrieve-001,compute-001"


@pytest.fixture
def worker_in_this_process(monkeypatch):
    """Jobs sent are run at once, here, and a worker counts as running."""
    monkeypatch.setattr(jobs, "worker_appears", lambda grace_s=0: True)
    monkeypatch.setattr(jobs, "lost_count", lambda kind, batch_id: 0)
    monkeypatch.setattr(execution.execute_trace_job, "delay", execution.execute_trace)
    monkeypatch.setattr(scoring.score_job_task, "delay", scoring.execute_job)


def run_command(*args) -> tuple[int, str]:
    out = StringIO()
    try:
        call_command(*args, stdout=out, stderr=StringIO())
    except SystemExit as exit_:
        return int(exit_.code), out.getvalue()
    return 0, out.getvalue()


def benchmark(model: str, *options: str) -> tuple[int, str]:
    return run_command(
        "run_benchmark", "--suite", "office-19", "--models", model, "--runs", "1",
        "--tasks", TASKS, "--wait", *options,
    )  # fmt: skip


def test_run_benchmark_wait_exits_0_when_every_trace_is_done(
    office_suite, sim_models, worker_in_this_process
):
    code, out = benchmark("sim-steady")
    assert code == 0, out
    assert set(Trace.objects.values_list("status", flat=True)) == {"done"}


def test_run_benchmark_wait_exits_1_with_one_errored_trace(
    office_suite, worker_in_this_process, settings
):
    settings.PROVIDER_MAX_ATTEMPTS = 1
    with FakeLLMServer() as server:
        server.script(OPENAI, error_reply(400, "bad request"))  # the first trace's first call
        ModelConfig.objects.create(
            name="m", provider="openai_compatible", model_id="x", base_url=server.openai_base_url
        )
        code, out = benchmark("m", "--call-limit", "1000")  # no price: the limit counts calls
    run = Run.objects.get()
    assert run.status == Run.Status.FINISHED  # the run finished: one trace is fine...
    assert sorted(run.traces.values_list("status", flat=True)) == ["done", "error"]
    assert code == 1, out  # ...but the command says not everything went well


def test_run_jury_wait_follows_the_same_rule(sim_models, worker_in_this_process, monkeypatch):
    run = scenario_run(sim_models)
    two_judge_panel()
    code, out = run_command("run_jury", "--run", str(run.pk), "--panel", "sim-panel", "--wait")
    assert code == 0, out

    real, calls = scoring.score_conversation, []

    def first_job_fails(job, **kwargs):
        calls.append(job.pk)
        if len(calls) == 1:
            raise RuntimeError("judge crashed")
        return real(job, **kwargs)

    monkeypatch.setattr(scoring, "score_conversation", first_job_fails)
    make_panel("other-panel", simulated_model("sim-judge-a"))
    code, out = run_command("run_jury", "--run", str(run.pk), "--panel", "other-panel", "--wait")
    latest = JuryRun.objects.order_by("-pk").first()
    assert (
        latest.status == JuryRun.Status.FINISHED and latest.jobs.filter(status="error").count() == 1
    )
    assert code == 1, out


class Batch:
    def __init__(self, status):
        self.status = status


@pytest.mark.parametrize(
    ("status", "error", "cancelled", "code"),
    [
        ("finished", 0, 0, 0),
        ("finished", 1, 0, 1),
        ("finished", 0, 1, 1),
        ("failed", 3, 0, 1),
        ("stopped", 0, 2, 1),
        ("cancelled", 0, 0, 1),
    ],
)
def test_the_rule(status, error, cancelled, code):
    assert jobs.exit_code(Batch(status), {"error": error, "cancelled": cancelled}) == code
