"""Where the test suite's time goes: wall and CPU per test, per module and per folder.

The suite is bound by CPU on a 2-core machine (four xdist workers run no faster than three), so
wall time per test says little: a test waiting on a worker process or a browser takes wall time
without taking a core. This is a pytest plugin that records, for every test, its wall time, the
CPU of the pytest process and the CPU of the child processes it reaped (Celery workers,
manage.py, a browser closed at the end of a session: a child's CPU is counted when it is
reaped, so the last test of a worker carries its browser's), one file per xdist worker; run as
a script it prints the totals.

    make test PYTEST_ARGS="-p benchmarks.suite_cpu"     # records to var/suite-cpu/
    .venv/bin/python benchmarks/suite_cpu.py [--top 40]  # prints what was recorded

PostgreSQL's and Redis's CPU are not in these figures.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import time
from pathlib import Path

import pytest

OUT = Path(__file__).resolve().parents[1] / "var" / "suite-cpu"
_rows: list[tuple[str, float, float, float]] = []


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        for stale in OUT.glob("*.json"):
            stale.unlink()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    started, (own, children) = time.monotonic(), _cpu()
    yield
    own_after, children_after = _cpu()
    _rows.append(
        (item.nodeid, time.monotonic() - started, own_after - own, children_after - children)
    )


def pytest_sessionfinish(session):
    if not _rows:
        return
    OUT.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    (OUT / f"{worker}.json").write_text(json.dumps(_rows))


def report(top: int) -> None:
    files = sorted(OUT.glob("*.json"))
    if not files:
        raise SystemExit(f"nothing recorded in {OUT}: run the tests with -p benchmarks.suite_cpu")
    rows = []
    for path in files:
        recorded = json.loads(path.read_text())
        rows += recorded
        wall, own, children = (sum(r[i] for r in recorded) for i in (1, 2, 3))
        print(
            f"{path.stem}: {len(recorded)} tests, wall {wall:.0f} s, CPU {own:.0f} s in pytest "
            f"+ {children:.0f} s in reaped children"
        )
    by_module: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for nodeid, wall, own, children in rows:
        entry = by_module[nodeid.split("::")[0]]
        entry[0] += wall
        entry[1] += own + children
        entry[2] += 1
    print(f"\nmodules by CPU (top {top}): CPU s, wall s, tests")
    for module, (wall, cpu, n) in sorted(by_module.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"{cpu:7.1f} {wall:7.1f} {n:5d}  {module}")
    print(f"\ntests by CPU (top {top}): CPU s (pytest + children), wall s")
    for nodeid, wall, own, children in sorted(rows, key=lambda r: -(r[2] + r[3]))[:top]:
        print(f"{own:6.1f} +{children:5.1f} {wall:7.1f}  {nodeid[:120]}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--top", type=int, default=30)
    report(parser.parse_args().top)
