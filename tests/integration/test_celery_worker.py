"""A run executed by a real Celery worker process on Redis, against PostgreSQL."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from config.celery import worker_argv
from patientagentbench.models import Run, Trace
from patientagentbench.runs.execution import execute_trace_job, progress
from patientagentbench.runs.launch import launch_run
from patientagentbench.runs.workers import worker_alive
from tests.patience import patient
from tests.services import require_services

ROOT = Path(__file__).resolve().parents[2]


def _database_url_for_test_db() -> str:
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


@pytest.fixture
def worker(transactional_db, tmp_path):
    _, broker_url = require_services()
    env = {
        **os.environ,
        "DATABASE_URL": _database_url_for_test_db(),
        "CELERY_BROKER_URL": broker_url,
        "PAB_VAR_DIR": str(tmp_path),
    }
    log = (tmp_path / "worker.log").open("w")
    process = subprocess.Popen(
        worker_argv(4, hostname=f"test-{os.getpid()}@%h"),
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + patient(60)
    while not worker_alive():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail("the worker did not start:\n" + (tmp_path / "worker.log").read_text())
        time.sleep(0.2)
    yield process
    process.terminate()
    try:
        process.wait(timeout=patient(20))
    except subprocess.TimeoutExpired:
        process.kill()


def _manage(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    """A management command in its own process, on the test database."""
    env = {**os.environ, "DATABASE_URL": _database_url_for_test_db()}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=patient(timeout),
    )


def _wait_until_ended(run: Run, timeout: float = 120) -> None:
    deadline = time.monotonic() + patient(timeout)
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if not run.is_active:
            return
        time.sleep(0.2)
    pytest.fail(f"run did not end: {progress(run.pk)}")


@pytest.mark.services
def test_worker_process_executes_a_run_and_a_redelivered_job_writes_one_trace(
    worker, office_suite, sim_models
):
    run = launch_run(suite=office_suite, models=sim_models, repetitions=2)  # enqueued on commit
    _wait_until_ended(run)
    assert run.status == Run.Status.FINISHED
    counts = progress(run.pk)
    assert counts["done"] == 19 * 2 * 2 and counts["error"] == 0
    assert run.cell_metrics.count() == 19 * 2

    trace = run.traces.first()
    before = Trace.objects.get(pk=trace.pk)
    execute_trace_job.delay(trace.pk)  # the same job delivered twice more
    execute_trace_job.delay(trace.pk)
    time.sleep(2)
    after = Trace.objects.get(pk=trace.pk)
    assert after.attempts == 1 and after.messages == before.messages
    assert Trace.objects.filter(run=run).count() == 19 * 2 * 2


@pytest.mark.services
def test_run_benchmark_wait_against_the_worker(worker, office_suite, sim_models, tmp_path):
    result = _manage(
        "run_benchmark", "--suite", "office-19", "--models", "sim-steady", "--runs", "3", "--wait"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    run_id = int(result.stdout.split()[0])
    assert Trace.objects.filter(run_id=run_id, status="done").count() == 57
    out = tmp_path / "traces.jsonl"
    exported = _manage("export_traces", "--run", str(run_id), "--out", str(out), timeout=60)
    assert exported.returncode == 0, exported.stderr
    assert len(out.read_text().splitlines()) == 57


@pytest.mark.services
def test_run_benchmark_wait_says_so_when_no_worker_runs(transactional_db, office_suite, sim_models):
    require_services()
    result = _manage(
        "run_benchmark",
        "--suite",
        "office-19",
        "--models",
        "sim-steady",
        "--runs",
        "1",
        "--tasks",
        "retrieve-001",
        "--wait",
        timeout=120,
    )
    assert result.returncode == 2
    assert "No Celery worker is running" in result.stderr
