"""A worker killed mid-run: the run still completes, every trace exactly once, no manual step.

Real Celery worker processes run a run of slowish traces (a local OpenAI-compatible stub
answering in 0.25 s); one is SIGKILLed while it holds traces, another starts, and the run
must finish by itself: the survivors' heartbeat takes the lost claims back and sends them
again. On PostgreSQL and Redis when the test process is configured for them (CI), otherwise
on the embedded SQLite file and filesystem broker, so it runs everywhere.
"""

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from patientagentbench.celery import worker_argv
from patientagentbench.models import ModelConfig, Run, Trace, WorkerHeartbeat
from patientagentbench.runs.execution import progress
from patientagentbench.runs.launch import launch_run
from tests.fakes.llm_server import FakeLLMServer
from tests.services import IN_CI, require_services

ROOT = Path(__file__).resolve().parents[2]
HEARTBEAT_S, DEAD_AFTER_S = 0.5, 3
REPETITIONS = 2  # 19 tasks × 2: 38 traces of two 0.25 s calls each

pytestmark = pytest.mark.django_db(transaction=True)


def worker_env(tmp_path) -> dict:
    env = {
        **os.environ,
        "WORKER_HEARTBEAT_S": str(HEARTBEAT_S),
        "WORKER_DEAD_AFTER_S": str(DEAD_AFTER_S),
    }
    vendor = connection.vendor
    if vendor == "postgresql" or IN_CI:
        database_url, broker_url = require_services()
        s = connection.settings_dict
        auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
        host = f"{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}"
        env["DATABASE_URL"] = f"postgres://{auth}@{host}/{s['NAME']}"
        env["CELERY_BROKER_URL"] = broker_url
        env["PAB_VAR_DIR"] = str(tmp_path)
    else:
        # The embedded default: the test database's SQLite file, and this process's broker
        # folders (the run's messages are written there), emptied of older tests' messages.
        assert vendor == "sqlite" and settings.CELERY_BROKER_URL.startswith("filesystem")
        env["DATABASE_URL"] = f"sqlite:///{connection.settings_dict['NAME']}"
        env["PAB_VAR_DIR"] = str(settings.VAR_DIR)
        for message in (settings.BROKER_DIR / "in").glob("*"):
            message.unlink(missing_ok=True)
    return env


class Workers:
    """Worker processes this test starts, each in its own process group, killed by id."""

    def __init__(self, tmp_path):
        self.tmp_path, self.env = tmp_path, worker_env(tmp_path)
        self.processes: list[subprocess.Popen] = []

    def start(self, name: str, pool: str = "threads", concurrency: int = 4) -> subprocess.Popen:
        log = (self.tmp_path / f"{name}.log").open("w")
        process = subprocess.Popen(
            worker_argv(concurrency, hostname=f"{name}-{os.getpid()}@%h", pool=pool),
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: killing it takes a prefork pool along
        )
        self.processes.append(process)
        deadline = time.monotonic() + 90
        while not WorkerHeartbeat.objects.filter(hostname__startswith=f"{name}-").exists():
            if process.poll() is not None or time.monotonic() > deadline:
                self.kill(process)
                pytest.fail(f"worker {name} did not start:\n" + self.log(name))
            time.sleep(0.2)
        return process

    def log(self, name: str) -> str:
        return (self.tmp_path / f"{name}.log").read_text()

    @staticmethod
    def kill(process: subprocess.Popen) -> None:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)

    def stop_all(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill(process)


@pytest.fixture
def workers(tmp_path, settings):
    settings.WORKER_DEAD_AFTER_S = DEAD_AFTER_S  # this process judges heartbeats alike
    started = Workers(tmp_path)
    yield started
    started.stop_all()


@pytest.fixture
def slow_model(db):
    with FakeLLMServer(latency=0.25) as server:
        yield ModelConfig.objects.create(
            name="slowish",
            provider="openai_compatible",
            model_id="slowish",
            base_url=server.openai_base_url,
            max_concurrency=32,
        )


def wait_until(condition, timeout: float, what: str, run: Run) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {timeout} s: {progress(run.pk)}")
        time.sleep(0.1)


def running_claims(run: Run) -> dict[int, str]:
    return dict(
        Trace.objects.filter(run=run, status=Trace.Status.RUNNING).values_list("pk", "worker")
    )


def assert_every_trace_exactly_once(run: Run, lost: set[int]) -> None:
    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED, progress(run.pk)
    traces = list(run.traces.values("pk", "key", "status", "attempts", "worker", "messages"))
    assert len(traces) == 19 * REPETITIONS
    assert len({t["key"] for t in traces}) == len(traces)
    assert {t["status"] for t in traces} == {"done"}
    assert all(t["worker"] == "" and t["messages"] for t in traces)
    # Only the traces the dead worker held ran twice; every resend of the others was a no-op.
    retried = {t["pk"] for t in traces if t["attempts"] > 1}
    assert retried == lost
    assert all(t["attempts"] == 2 for t in traces if t["pk"] in lost)


def launch(office_suite, model) -> Run:
    return launch_run(suite=office_suite, models=[model], repetitions=REPETITIONS)  # sent now


@pytest.mark.parametrize("pool", ["threads", "prefork"])
def test_a_killed_worker_leaves_no_run_stuck(workers, office_suite, slow_model, pool):
    first = workers.start("first", pool=pool, concurrency=4 if pool == "threads" else 2)
    run = launch(office_suite, slow_model)
    wait_until(
        lambda: progress(run.pk)["done"] >= 3 and len(running_claims(run)) >= 2,
        90,
        "traces running on the first worker",
        run,
    )
    workers.kill(first)  # SIGKILL, pool and all: it acknowledges nothing, tells nobody
    lost = set(running_claims(run))
    assert lost, "the worker held no trace when it was killed"

    workers.start("second", pool=pool, concurrency=4 if pool == "threads" else 2)
    wait_until(lambda: not Run.objects.get(pk=run.pk).is_active, 120, "the run finishing", run)
    assert_every_trace_exactly_once(run, lost)


def test_a_killed_prefork_child_is_replaced_and_its_trace_recovered(
    workers, office_suite, slow_model
):
    """The OOM killer takes one child of a prefork pool; the worker itself lives on."""
    worker = workers.start("pool", pool="prefork", concurrency=2)
    run = launch(office_suite, slow_model)
    wait_until(lambda: len(running_claims(run)) >= 1, 90, "a trace running", run)
    trace_id, holder = next(iter(running_claims(run).items()))
    child_pid = int(holder.split("#")[1])
    assert child_pid != worker.pid  # the child claims under its own id
    os.kill(child_pid, signal.SIGKILL)  # a process of the worker this test started
    lost = {pk for pk, worker in running_claims(run).items() if worker == holder}
    assert trace_id in lost, "the child finished its trace before it was killed"

    wait_until(lambda: not Run.objects.get(pk=run.pk).is_active, 120, "the run finishing", run)
    assert worker.poll() is None  # the pool replaced its child and went on
    assert_every_trace_exactly_once(run, lost)
