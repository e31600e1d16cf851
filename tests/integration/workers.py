"""Real worker processes for fault tests: started in their own process groups on the test
database (and Redis in CI, else the embedded broker), killed by id, and judged by the
heartbeats they write."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from config.celery import worker_argv
from patientagentbench.models import Run, Trace, WorkerHeartbeat
from patientagentbench.runs.execution import progress
from tests.patience import patient
from tests.services import IN_CI, require_services

ROOT = Path(__file__).resolve().parents[2]
# A worker is judged dead after 12 missed beats, not 6: with two test processes and another
# load on two cores, a live worker's heartbeat thread once went 3 s without a beat and the
# other worker took its traces back (each then ran twice).
HEARTBEAT_S, DEAD_AFTER_S = 0.5, 6


def free_port() -> int:
    """A port nothing listens on (right now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def launch_from_the_command_line(env: dict, *options: str) -> tuple[Run, str]:
    """`manage.py run_benchmark --suite office-19 OPTIONS` in its own process, as an operator
    launches: the run it printed, and what it said on stderr."""
    launched = subprocess.run(
        [sys.executable, "manage.py", "run_benchmark", "--suite", "office-19", *options],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert launched.returncode == 0, launched.stderr
    return Run.objects.get(pk=int(launched.stdout.split()[-1])), launched.stderr


def database_url() -> str:
    """The test database as a URL a worker process can open."""
    if connection.vendor == "sqlite":
        return f"sqlite:///{connection.settings_dict['NAME']}"
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    host = f"{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}"
    return f"postgres://{auth}@{host}/{s['NAME']}"


def worker_env(tmp_path) -> dict:
    env = {
        **os.environ,
        "WORKER_HEARTBEAT_S": str(HEARTBEAT_S),
        "WORKER_DEAD_AFTER_S": str(DEAD_AFTER_S),
        "DATABASE_URL": database_url(),
    }
    if connection.vendor == "postgresql" or IN_CI:
        _, env["CELERY_BROKER_URL"] = require_services()
        env["PAB_VAR_DIR"] = str(tmp_path)
    else:
        # The embedded default: the test database's SQLite file, and this process's broker
        # folders (the run's messages are written there), emptied of older tests' messages.
        assert settings.CELERY_BROKER_URL.startswith("filesystem")
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
        _signal_group(process, signal.SIGKILL)
        process.wait(timeout=30)

    def stop_all(self) -> None:
        for process in self.processes:
            # The main process alone: it stops its own pool. SIGTERM to a prefork child makes
            # the main process fork a replacement, and its shutdown waited ~10 s for those.
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=20)
            # Whatever is left of the group: a prefork child whose leader a test killed alone
            # holds its database connections, and the test database cannot be dropped then.
            self.kill(process)


def _signal_group(process: subprocess.Popen, sig: int) -> None:
    """The worker's whole process group, the leader gone or not."""
    with contextlib.suppress(ProcessLookupError):  # nobody left in it
        os.killpg(process.pid, sig)


def wait_until(condition, timeout: float, what: str, run: Run | None) -> None:
    """Poll `condition`; on timeout fail naming `what` (and the run's progress, if any)."""
    timeout = patient(timeout)
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            state = f": {progress(run.pk)}" if run else ""
            pytest.fail(f"{what} did not happen within {timeout} s{state}")
        time.sleep(0.1)


def claims_left_by(run: Run, dead, settle_s: float = 1.0) -> set[int]:
    """The traces a just-killed holder left claimed. A claim the holder sent just before the
    SIGKILL can still be in the database's socket and commit a moment after the kill, so the
    claims are sampled over a short window (well under WORKER_DEAD_AFTER_S, before any
    recovery could take them back) rather than read once."""
    left: set[int] = set()
    deadline = time.monotonic() + settle_s
    while True:
        left |= {pk for pk, holder in running_claims(run).items() if dead(holder)}
        if time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def running_claims(run: Run) -> dict[int, str]:
    return dict(
        Trace.objects.filter(run=run, status=Trace.Status.RUNNING).values_list("pk", "worker")
    )


def pool_children(worker: subprocess.Popen, concurrency: int) -> list[int]:
    """The pids of a prefork worker's children, once it has forked them all."""
    path = f"/proc/{worker.pid}/task/{worker.pid}/children"
    found: list[int] = []
    deadline = time.monotonic() + 30
    while len(found) < concurrency and time.monotonic() < deadline:
        with open(path) as listing:
            found = [int(pid) for pid in listing.read().split()]
        time.sleep(0.1)
    assert found, "the pool forked no children"
    return found


def alive(pid: int) -> bool:
    """Running still (a zombie has exited: only its entry is left to reap)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[-1][0] != "Z"
    except FileNotFoundError:
        return False
