"""Pipeline throughput: the seed paper's study shape through real Celery workers.

6 models × 19 tasks × 10 runs of office-19 against a local OpenAI-compatible stub that
answers every call after LATENCY seconds. Prints the wall time, the ideal
`calls × latency / concurrency`, their ratio (target ≤ 1.5), and the same study through a
plain sequential loop (the seed paper's runner shape, without its 0.5 s sleep).

Needs PostgreSQL and Redis (defaults: 127.0.0.1). Creates and drops its own database.

    .venv/bin/python benchmarks/pipeline.py [--runs 10] [--workers 2] [--threads 32]
                                             [--sequential-jobs 114]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PG_ADMIN_URL = os.environ.get("BENCH_PG_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")
BENCH_DB = "pab_pipeline_bench"
BROKER = os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/3")
LATENCY = 0.3
MODELS = 6


def recreate_database(name: str = BENCH_DB) -> str:
    """A fresh PostgreSQL database for one benchmark; its URL."""
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--threads", type=int, default=32, help="threads per worker")
    parser.add_argument(
        "--sequential-jobs",
        type=int,
        default=114,
        help="jobs timed in the sequential loop; the full study time is extrapolated "
        "(0 = the whole study, which takes calls × latency)",
    )
    args = parser.parse_args()
    concurrency = args.workers * args.threads

    var_dir = tempfile.mkdtemp(prefix="pab-bench-")
    os.environ.update(
        DATABASE_URL=recreate_database(),
        CELERY_BROKER_URL=BROKER,
        PAB_VAR_DIR=var_dir,
        DJANGO_SETTINGS_MODULE="patientagentbench.settings",
        PROVIDER_CONCURRENCY="0",
    )
    import django

    django.setup()
    from django.core.management import call_command

    from patientagentbench.celery import app
    from patientagentbench.models import ModelConfig, Suite
    from patientagentbench.runs.execution import progress
    from patientagentbench.runs.launch import launch_run
    from tests.fakes.llm_server import FakeLLMServer

    call_command("migrate", verbosity=0)
    call_command("install_suites", verbosity=0)
    app.control.purge()

    with FakeLLMServer(latency=LATENCY) as server:
        models = [
            ModelConfig.objects.create(
                name=f"stub-{i}",
                provider="openai_compatible",
                model_id=f"stub-model-{i}",
                base_url=server.openai_base_url,
                max_concurrency=concurrency,
            )
            for i in range(MODELS)
        ]
        suite = Suite.objects.get(name="office-19")
        workers = start_workers(args.workers, args.threads, var_dir)
        try:
            wait_for_workers(args.workers)
            server.reset()
            started = time.perf_counter()
            run = launch_run(suite=suite, models=models, repetitions=args.runs)
            while True:
                run.refresh_from_db(fields=["status"])
                if not run.is_active:
                    break
                time.sleep(0.05)
            wall = time.perf_counter() - started
        finally:
            for worker in workers:
                worker.terminate()
            for worker in workers:
                worker.wait(timeout=30)

        counts = progress(run.pk)
        calls = len(server.requests)
        workers_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        own_cpu = resource.getrusage(resource.RUSAGE_SELF)
        ideal = calls * LATENCY / concurrency
        jobs = counts["total"]
        print(
            f"study: {MODELS} models × {suite.tasks.count()} tasks × {args.runs} runs = {jobs} jobs"
        )
        print(f"result: {counts['done']} done, {counts['error']} errors, run {run.status}")
        print(
            f"model calls: {calls} at {LATENCY * 1000:.0f} ms each; concurrency {concurrency} "
            f"({args.workers} workers × {args.threads} threads)"
        )
        print(f"wall time (workers): {wall:.2f} s")
        print(f"ideal calls × latency / concurrency: {ideal:.2f} s")
        print(f"ratio wall / ideal: {wall / ideal:.2f} (target ≤ 1.5)")
        print(
            f"CPU seconds: workers {workers_cpu.ru_utime + workers_cpu.ru_stime:.1f}, "
            f"this process (stub server, setup) {own_cpu.ru_utime + own_cpu.ru_stime:.1f}; "
            f"{os.cpu_count()} cores"
        )

        sequential, timed_jobs = sequential_loop(
            server, suite, models, args.runs, args.sequential_jobs
        )
        full = sequential * jobs / timed_jobs
        label = "measured" if timed_jobs == jobs else f"extrapolated from {timed_jobs} jobs"
        print(f"plain sequential loop: {full:.1f} s ({label}); speed-up {full / wall:.1f}×")


def start_workers(count: int, threads: int, var_dir: str) -> list[subprocess.Popen]:
    from patientagentbench.celery import worker_argv

    log = open(Path(var_dir) / "workers.log", "w")  # noqa: SIM115 - lives as long as they do
    return [
        subprocess.Popen(
            worker_argv(threads, "WARNING", f"bench{i}@%h"),
            cwd=ROOT,
            env=os.environ.copy(),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        for i in range(count)
    ]


def wait_for_workers(count: int) -> None:
    from patientagentbench.models import WorkerHeartbeat
    from patientagentbench.runs.workers import worker_alive

    deadline = time.monotonic() + 60
    while WorkerHeartbeat.objects.count() < count or not worker_alive():
        if time.monotonic() > deadline:
            raise SystemExit("workers did not start")
        time.sleep(0.2)


def sequential_loop(server, suite, models, repetitions: int, limit: int) -> tuple[float, int]:
    """One job after another in one process: no workers, no database writes."""
    from patientagentbench.conversation import TaskUser, run_conversation
    from patientagentbench.providers.factory import build_provider
    from patientagentbench.providers.types import CallContext
    from patientagentbench.runs.worlds import build_world

    jobs = [
        (task, model) for task in suite.tasks.all() for model in models for _ in range(repetitions)
    ]
    if limit:
        jobs = jobs[:: max(1, len(jobs) // limit)][:limit]
    started = time.perf_counter()
    for task, model in jobs:
        provider = build_provider(model.provider, model.model_id, model.base_url, model.api_key_env)
        tools = build_world(suite).tool_schemas()
        run_conversation(
            complete=lambda messages, p=provider, t=tools, task=task: p.complete(
                messages, t, 1.0, CallContext(task=task.as_data())
            ),
            world=build_world(suite),
            user=TaskUser(task.prompt),
            system_prompt=suite.system_prompt,
        )
    return time.perf_counter() - started, len(jobs)


if __name__ == "__main__":
    main()
