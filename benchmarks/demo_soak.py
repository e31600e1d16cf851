"""Soak the embedded default (SQLite + filesystem broker) as `make demo` runs it: `manage.py
serve` with one worker, benchmark runs launched one after another from the command line while
a reader loads pages, for a given time. Prints jobs done, worker restarts, broker messages set
aside and jobs lost (traces not done once the last run has drained).

    .venv/bin/python benchmarks/demo_soak.py --minutes 60
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("/accounts/login/", "/")


def environment(folder: Path) -> dict:
    return {
        **os.environ,
        "DEBUG": "true",
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "CELERY_BROKER_URL": "filesystem://",
        "CACHE_URL": "",
        "PAB_VAR_DIR": str(folder),
    }


def manage(env: dict, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def read_pages(port: int, stop: threading.Event, counts: dict) -> None:
    while not stop.is_set():
        for page in PAGES:
            try:
                status = urllib.request.urlopen(f"http://127.0.0.1:{port}{page}", timeout=10).status
                counts["ok" if status == 200 else "other"] += 1
            except OSError:
                counts["failed"] += 1  # refused, or no answer within 10 s
        stop.wait(0.5)


def wait_for_web(port: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}{PAGES[0]}", timeout=5)
            return
        except OSError:
            time.sleep(0.5)
    sys.exit("soak: the web app did not answer")


def traces(folder: Path) -> dict[str, int]:
    with sqlite3.connect(folder / "db.sqlite3") as db:
        rows = db.execute("select status, count(*) from patientagentbench_trace group by status")
        return dict(rows.fetchall())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--runs", type=int, default=2, help="Repetitions per launched run")
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pab-soak-"))
    env = environment(folder)
    # The demo as `make demo` seeds it (fewer repetitions: the soak is about what comes after).
    seeded = manage(
        env, "seed_demo", "--migrate", "--repetitions", "1", "--scenario-repetitions", "1",
        timeout=1800,
    )  # fmt: skip
    if seeded.returncode != 0:
        sys.exit(seeded.stderr)
    port = free_port()
    log_path = folder / "serve.log"
    with log_path.open("w") as log:
        serve = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--port", str(port), "--concurrency", "4"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    counts = {"ok": 0, "other": 0, "failed": 0}
    stop = threading.Event()
    reader = threading.Thread(target=read_pages, args=(port, stop, counts), daemon=True)
    launched = launch_failures = 0
    started = time.monotonic()
    try:
        wait_for_web(port)
        reader.start()
        deadline = started + options.minutes * 60
        while time.monotonic() < deadline:
            run = manage(
                env, "run_benchmark", "--suite", "office-19", "--models", "sim-jittery",
                "--runs", str(options.runs), "--wait", timeout=900,
            )  # fmt: skip
            launched += 1
            launch_failures += run.returncode != 0
        stop.set()
        drain_until = time.monotonic() + 120
        while traces(folder).get("queued", 0) + traces(folder).get("running", 0):
            if time.monotonic() > drain_until:
                break
            time.sleep(1)
    finally:
        stop.set()
        os.killpg(serve.pid, signal.SIGINT)
        serve.wait(timeout=60)
    output = log_path.read_text()
    states = traces(folder)
    set_aside = folder / "broker" / "processed" / "unreadable"
    print(f"soak: {(time.monotonic() - started) / 60:.1f} min of the embedded default in {folder}")
    print(f"runs launched: {launched} ({launch_failures} did not end cleanly)")
    print(f"jobs (traces) by status: {states}")
    print(
        f"jobs lost (not done after draining): {sum(v for k, v in states.items() if k != 'done')}"
    )
    print(f"worker restarts: {len(re.findall('The worker stopped', output))}")
    print(
        f"broker messages set aside: {len(list(set_aside.glob('*'))) if set_aside.exists() else 0}"
    )
    print(f"page loads: {counts}")


if __name__ == "__main__":
    main()
