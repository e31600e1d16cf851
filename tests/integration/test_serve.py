"""`manage.py serve` (what `make demo` runs): a worker that dies is started again while the
web app keeps answering, and Ctrl-C or SIGTERM stops both (also when started in the
background, where SIGINT arrives ignored)."""

import contextlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.integration.workers import ROOT, free_port
from tests.patience import patient


def children(pid: int) -> dict[int, str]:
    """Direct child processes of `pid` and their command lines."""
    found = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
            found[int(child)] = cmdline.decode()
    return found


def eventually(condition, timeout: float, what: str):
    timeout = patient(timeout)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.2)
    pytest.fail(f"{what} did not happen within {timeout} s")


def serve_env(folder: Path) -> dict:
    return {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "CELERY_BROKER_URL": "filesystem://",
        "CACHE_URL": "",
        "PAB_VAR_DIR": str(folder),
        "WORKER_HEARTBEAT_S": "0.5",
    }


@pytest.fixture(scope="module")
def migrated(tmp_path_factory) -> Path:
    """A database `manage.py migrate` made, once for both ways of stopping (4 s each)."""
    folder = tmp_path_factory.mktemp("migrated")
    env = serve_env(folder)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    return folder / "db.sqlite3"


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_serve_restarts_a_dead_worker_and_keeps_the_web_app_up(tmp_path, stop, migrated):
    env = serve_env(tmp_path)
    for part in migrated.parent.glob("db.sqlite3*"):  # with its WAL, were one left behind
        shutil.copyfile(part, tmp_path / part.name)
    port = free_port()
    log = (tmp_path / "serve.log").open("w")
    serve = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port), "--concurrency", "1"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        # As a shell starts a background job: SIGINT ignored until the program says otherwise.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    login = f"http://127.0.0.1:{port}/accounts/login/"

    def web_answers() -> bool:
        try:
            return urllib.request.urlopen(login, timeout=2).status == 200
        except OSError:
            return False

    def worker() -> int | None:
        found = [pid for pid, cmd in children(serve.pid).items() if " celery " in f" {cmd} "]
        return found[0] if found else None

    def heartbeats() -> set[str]:
        with sqlite3.connect(tmp_path / "db.sqlite3") as db:
            rows = db.execute("select hostname from patientagentbench_workerheartbeat")
            return {row[0] for row in rows}

    try:
        eventually(web_answers, 60, "the web app answering")
        first = eventually(worker, 30, "a worker starting")
        before = eventually(heartbeats, 60, "the worker beating")

        os.kill(first, signal.SIGKILL)
        second = eventually(lambda: (w := worker()) and w != first and w, 30, "a new worker")
        eventually(lambda: heartbeats() - before, 60, "the new worker beating")
        assert web_answers()
        assert serve.poll() is None
        web = next(pid for pid, cmd in children(serve.pid).items() if "runserver" in cmd)
    finally:
        left = list(children(serve.pid)) if serve.poll() is None else []
        serve.send_signal(stop)
        try:
            code = serve.wait(timeout=patient(30))
        except subprocess.TimeoutExpired:
            for pid in [*left, serve.pid]:  # leave no server behind for the next test
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            raise
        finally:
            log.close()
    output = (tmp_path / "serve.log").read_text()
    assert "The worker stopped (exit code -9); starting it again." in output
    assert code == 0, output[-2000:]
    for child in (second, web):  # both children stopped with it
        assert (
            not Path(f"/proc/{child}").exists()
            or "zombie" in Path(f"/proc/{child}/status").read_text()
        )


def test_serve_keeps_its_worker_through_an_unreadable_message_and_runs_the_next_job(
    tmp_path, migrated
):
    """The demo's worker died on kombu's filesystem transport when it took a message file
    that was still empty (config.broker); the jobs behind it waited for a worker by hand."""
    env = serve_env(tmp_path)
    for part in migrated.parent.glob("db.sqlite3*"):
        shutil.copyfile(part, tmp_path / part.name)
    for setup in (
        ["install_suites"],
        ["add_model", "sim-steady", "--provider", "simulated", "--model", "sim-steady"],
    ):
        subprocess.run([sys.executable, "manage.py", *setup], cwd=ROOT, env=env, check=True)
    log = (tmp_path / "serve.log").open("w")
    serve = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(free_port()), "--concurrency", "1"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )

    def worker() -> int | None:
        found = [pid for pid, cmd in children(serve.pid).items() if " celery " in f" {cmd} "]
        return found[0] if found else None

    try:
        first = eventually(worker, 30, "a worker starting")
        # What a poller finds between kombu's open() and write(): the oldest file, empty.
        (tmp_path / "broker" / "in" / "0000_still-empty.celery.msg").touch()
        launched = subprocess.run(
            [sys.executable, "manage.py", "run_benchmark", "--suite", "office-19"]
            + ["--models", "sim-steady", "--runs", "1", "--tasks", "retrieve-001", "--wait"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=patient(180),
        )
        assert launched.returncode == 0, launched.stdout + launched.stderr
        assert worker() == first
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(serve.pid, signal.SIGTERM)
        serve.wait(timeout=patient(30))
        log.close()
    output = (tmp_path / "serve.log").read_text()
    assert "The worker stopped" not in output
    assert "0000_still-empty.celery.msg could not be read" in output
    assert (
        tmp_path / "broker" / "processed" / "unreadable" / "0000_still-empty.celery.msg"
    ).exists()
