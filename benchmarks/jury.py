"""Jury throughput: the demo's scenario conversations × 3 judges × 6 dimensions through real
Celery workers, against a local OpenAI-compatible stub answering every call after LATENCY
seconds (structured output: a schema-shaped verdict).

Prints the wall time of the scoring, the ideal `calls × latency / concurrency` and their
ratio (target ≤ 1.5, DESIGN §10), and how the answers came out.

The conversations are the demo's (seed_demo's case set and scenario run: 60 cases × 3
simulated agents × 2 repetitions), made offline first and not timed.

Needs PostgreSQL and Redis (defaults: 127.0.0.1). Creates and drops its own database.

    .venv/bin/python benchmarks/jury.py [--workers 2] [--threads 32] [--judges 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.pipeline import recreate_database, start_workers, wait_for_workers  # noqa: E402

BENCH_DB = "pab_jury_bench"
BROKER = os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/4")
LATENCY = 0.3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--threads", type=int, default=32, help="threads per worker")
    parser.add_argument("--judges", type=int, default=3)
    args = parser.parse_args()
    concurrency = args.workers * args.threads

    var_dir = tempfile.mkdtemp(prefix="pab-jury-bench-")
    os.environ.update(
        DATABASE_URL=recreate_database(BENCH_DB),
        CELERY_BROKER_URL=BROKER,
        PAB_VAR_DIR=var_dir,
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    import django

    django.setup()
    from django.core.management import call_command

    from config.celery import app
    from jury.models import Judge, Panel, Verdict
    from jury.scoring import launch_jury, progress
    from patientagentbench.models import ModelConfig
    from ratings.rubric import cached_rubric
    from tests.fakes.llm_server import FakeLLMServer

    call_command("migrate", verbosity=0)
    app.control.purge()
    started = time.perf_counter()
    run = demo_conversations()
    conversations = run.traces.count()
    print(
        f"demo conversations: {conversations} (made offline in {time.perf_counter() - started:.0f} s)"
    )

    with FakeLLMServer(latency=LATENCY) as server:
        panel = Panel.objects.create(name="stub-jury")
        for i in range(args.judges):
            model = ModelConfig.objects.create(
                name=f"stub-judge-{i}",
                provider="openai_compatible",
                model_id=f"stub-judge-{i}",
                base_url=server.openai_base_url,
                max_concurrency=concurrency,
            )
            panel.judges.add(Judge.objects.create(name=f"stub-judge-{i}", model=model))
        workers = start_workers(args.workers, args.threads, var_dir)
        try:
            wait_for_workers(args.workers)
            server.reset()
            started = time.perf_counter()
            jury_run = launch_jury(panel=panel, run=run)
            while True:
                jury_run.refresh_from_db(fields=["status"])
                if not jury_run.is_active:
                    break
                time.sleep(0.05)
            wall = time.perf_counter() - started
        finally:
            for worker in workers:
                worker.terminate()
            for worker in workers:
                worker.wait(timeout=30)

    counts = progress(jury_run.pk)
    calls = len(server.requests)
    dimensions = len(cached_rubric().scored)
    ideal = calls * LATENCY / concurrency
    statuses = Counter(Verdict.objects.filter(panel=panel).values_list("status", flat=True))
    print(
        f"scoring: {conversations} conversations × {args.judges} judges × {dimensions} "
        f"dimensions = {conversations * args.judges * dimensions} verdicts in "
        f"{counts['total']} judge jobs"
    )
    print(f"result: {counts['done']} jobs done, {counts['error']} failed, {jury_run.status}")
    print(f"verdicts: {dict(statuses)}")
    print(
        f"judge calls: {calls} at {LATENCY * 1000:.0f} ms each; concurrency {concurrency} "
        f"({args.workers} workers × {args.threads} threads)"
    )
    print(f"wall time (workers): {wall:.2f} s")
    print(f"ideal calls × latency / concurrency: {ideal:.2f} s")
    print(f"ratio wall / ideal: {wall / ideal:.2f} (target ≤ 1.5)")


def demo_conversations():
    """seed_demo's scenario run: the same case set, agents and repetitions, run inline."""
    from patientagentbench.demo import (
        DEMO_CASE_COUNT,
        DEMO_CASE_SEED,
        DEMO_CASE_SET,
        DEMO_SCENARIO_LABEL,
        SIMULATED_MODELS,
    )
    from patientagentbench.models import ModelConfig
    from patientagentbench.runs.launch import execute_inline, launch_run
    from patientagentbench.suites.case_sets import create_case_set

    models = [
        ModelConfig.objects.create(name=name, provider="simulated", model_id=name)
        for name in SIMULATED_MODELS
    ]
    suite = create_case_set(DEMO_CASE_SET, DEMO_CASE_COUNT, DEMO_CASE_SEED)
    run = launch_run(
        suite=suite,
        models=models,
        repetitions=2,
        temperatures=[1.0],
        max_turns=10,
        label=DEMO_SCENARIO_LABEL,
        enqueue=False,
    )
    execute_inline(run)
    return run


if __name__ == "__main__":
    main()
