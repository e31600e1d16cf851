"""Time the analysis page of the demo's runs, as a researcher meets it after `seed_demo`.

Seeds the demo into a fresh var directory (SQLite, file cache), then requests each demo run's
analysis page through Django's test client: the first view (which should read the analysis
computed when the run finished) and the median of later views. Also times a cold recompute
(cache cleared) for comparison. DESIGN target for the first view: < 200 ms.

    .venv/bin/python benchmarks/analysis_page.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.scratch import scratch_django  # noqa: E402

REPEATS = 5
TARGET_MS = 200


def main() -> None:
    scratch_django("pab-analysis-bench-")
    from django.contrib.auth.models import User
    from django.core.cache import cache
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment

    setup_test_environment()  # allows the test client's 'testserver' host
    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        call_command("seed_demo", password="bench-pass", stdout=quiet)
    print(f"seed_demo: {time.perf_counter() - started:.1f} s (includes computing the analyses)")

    from patientagentbench.models import Run

    client = Client()
    client.force_login(User.objects.get(username="researcher"))
    # A new process's first request loads templates and URL modules whatever the page; time it
    # apart, so "first view" measures the analysis page, not the process starting.
    print(f"process warm-up (GET /runs/): {timed(client, '/runs/'):.0f} ms")
    runs = list(Run.objects.select_related("suite").order_by("pk"))
    urls = {run.pk: f"/runs/{run.pk}/report/" for run in runs}
    first = {pk: timed(client, url) for pk, url in urls.items()}  # before anything else
    later = {
        pk: statistics.median(timed(client, url) for _ in range(REPEATS))
        for pk, url in urls.items()
    }
    cold = {}
    for pk, url in urls.items():
        cache.clear()
        cold[pk] = timed(client, url)
    for run in runs:
        verdict = "met" if first[run.pk] < TARGET_MS else "MISSED"
        print(
            f"run {run.pk} ({run.suite.name}, {run.traces.count()} traces): "
            f"first view {first[run.pk]:.0f} ms, later views {later[run.pk]:.0f} ms "
            f"(median of {REPEATS}), cold recompute {cold[run.pk]:.0f} ms; "
            f"target first view < {TARGET_MS} ms: {verdict}"
        )


def timed(client, url: str) -> float:
    started = time.perf_counter()
    response = client.get(url)
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status_code == 200, (url, response.status_code)
    return elapsed


if __name__ == "__main__":
    main()
