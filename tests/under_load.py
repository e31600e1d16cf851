"""Run a command beside a CPU hog of twice the machine's cores, with every test deadline
stretched (`PAB_TEST_PATIENCE`, default 4 here): `make test-under-load` runs the suite so.

A test that fails here and passes on a quiet machine waits on a fixed time rather than on the
condition it checks. The hog's processes are plain busy loops, ended when the command ends.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time


def _burn() -> None:
    while True:
        pass


def run_under_load(argv: list[str], factor: int = 2) -> int:
    busy = factor * (os.cpu_count() or 1)
    hogs = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(busy)]
    for hog in hogs:
        hog.start()
    env = dict(os.environ)
    env.setdefault("PAB_TEST_PATIENCE", "4")
    started = time.monotonic()
    try:
        code = subprocess.call(argv, env=env)
    finally:
        for hog in hogs:
            hog.terminate()
    print(
        f"under load: {busy} busy processes beside `{' '.join(argv)}` "
        f"(patience {env['PAB_TEST_PATIENCE']}): exit {code} in {time.monotonic() - started:.0f} s",
        flush=True,
    )
    return code


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python -m tests.under_load COMMAND [ARG ...]")
    sys.exit(run_under_load(sys.argv[1:]))
