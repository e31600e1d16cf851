"""Pipeline throughput: the seed paper's study shape through real Celery workers.

6 models × 19 tasks × 10 runs of office-19 against a local OpenAI-compatible stub that
answers every call after LATENCY seconds. Prints the wall time, the ideal
`calls × latency / concurrency`, their ratio (target ≤ 1.5), where the CPU went while the
run ran (workers, PostgreSQL, Redis, the stub; the machine's other load is printed beside
them, since on a small machine it moves the wall time), and a plain sequential loop (the
seed paper's runner shape, without its 0.5 s sleep) measured on each task × model once and
scaled to the study by model calls.

Needs PostgreSQL and Redis (defaults: 127.0.0.1). Creates its own database.

    .venv/bin/python benchmarks/pipeline.py [--runs 10] [--workers 2] [--threads 32]
                                             [--sequential-runs 1]
"""

from __future__ import annotations

import argparse
import functools
import io
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
        "--sequential-runs",
        type=int,
        default=1,
        help="runs of each task × model timed in the sequential loop, scaled to the study by "
        "model calls (0: no loop; --runs or more: the whole study, measured)",
    )
    args = parser.parse_args()
    concurrency = args.workers * args.threads

    var_dir = tempfile.mkdtemp(prefix="pab-bench-")
    os.environ.update(
        DATABASE_URL=recreate_database(),
        CELERY_BROKER_URL=BROKER,
        PAB_VAR_DIR=var_dir,
        DJANGO_SETTINGS_MODULE="config.settings",
        PROVIDER_CONCURRENCY="0",
        # Workers as production runs them, DEBUG off (whatever the caller's shell says; with it
        # on, Django also keeps every query: the same 6.4-6.6 ms of worker CPU a call here).
        DEBUG="false",
        SECRET_KEY="pipeline-bench",
        # The stub's HTTP client logs every request at INFO; the workers log at WARNING too.
        LOG_LEVEL="WARNING",
    )
    import django

    django.setup()
    from django.core.management import call_command

    from config.celery import app
    from patientagentbench.models import ModelConfig, Suite
    from patientagentbench.runs.execution import progress
    from patientagentbench.runs.launch import launch_run
    from tests.fakes.llm_server import FakeLLMServer

    call_command("migrate", verbosity=0)
    call_command("install_suites", verbosity=0, stdout=io.StringIO())
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
            cpu_before = cpu_snapshot(workers)
            started, started_at = time.perf_counter(), time.time()
            run = launch_run(suite=suite, models=models, repetitions=args.runs)
            launched = time.perf_counter() - started
            while True:
                run.refresh_from_db(fields=["status"])
                if not run.is_active:
                    break
                time.sleep(0.05)
            wall = time.perf_counter() - started
            cpu_during = cpu_snapshot(workers).minus(cpu_before)
        finally:
            for worker in workers:
                worker.terminate()
            for worker in workers:
                worker.wait(timeout=60)

        counts = progress(run.pk)
        calls = len(server.requests)
        workers_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
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
        print(timeline(run, started_at, launched, wall, concurrency, calls / jobs))
        print(cpu_during.report(calls, wall))
        print(
            f"CPU seconds: workers {workers_cpu.ru_utime + workers_cpu.ru_stime:.1f} in all "
            f"(with the finished run's analysis, computed after it ends); {os.cpu_count()} cores"
        )

        if args.sequential_runs > 0:
            print(sequential_line(server, suite, models, args.runs, args.sequential_runs, wall))


# --- where the wall time went ------------------------------------------------------------


def timeline(run, started_at: float, launched: float, wall: float, slots: int, calls_per_job):
    """The run as its traces' claim and end times tell it: when the first was claimed and the
    last ended, how long a trace held its slot against the latency it waited on, and how full
    the slots were in between."""
    from django.db.models import Max, Min

    from patientagentbench.models import Trace

    traces = Trace.objects.filter(run=run)
    span = traces.aggregate(first=Min("started_at"), last=Max("finished_at"))
    held = [
        (end - start).total_seconds()
        for start, end in traces.values_list("started_at", "finished_at")
        if start and end
    ]
    first = span["first"].timestamp() - started_at
    last = span["last"].timestamp() - started_at
    mean = sum(held) / len(held)
    return (
        f"timeline: launch returned after {launched:.2f} s (rows written, jobs sent); first "
        f"trace claimed at {first:.2f} s, last ended at {last:.2f} s, run seen finished at "
        f"{wall:.2f} s\n"
        f"a trace held its slot {mean * 1000:.0f} ms on average ({calls_per_job:.1f} calls × "
        f"{LATENCY * 1000:.0f} ms = {calls_per_job * LATENCY * 1000:.0f} ms of waiting); slots "
        f"busy {100 * sum(held) / (slots * (last - first)):.0f}% between the first claim and "
        f"the last end"
    )


# --- where the CPU went ------------------------------------------------------------------


def _proc_stat(pid: int | str) -> list[str]:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return []


def _ticks(fields: list[str], *indexes: int) -> float:
    return sum(int(fields[i]) for i in indexes) / os.sysconf("SC_CLK_TCK") if fields else 0.0


def _postgres_cpu() -> float:
    """PostgreSQL's CPU so far: the postmaster's own, its live children's, and the children it
    reaped (a backend is forked per connection, and Celery closes the connection after every
    task). Other users of this server count too."""
    pid = _postmaster_pid()
    if not pid:
        return 0.0
    total = _ticks(_proc_stat(pid), 11, 12, 13, 14)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _proc_stat(entry.name)
            if fields and int(fields[1]) == pid:
                total += _ticks(fields, 11, 12)
    return total


@functools.cache
def _postmaster_pid() -> int:
    """The PostgreSQL server's pid, when it runs on this machine (0 if not): the `postgres`
    process whose parent is not one."""

    def comm(pid: int | str) -> str:
        try:
            return Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            return ""

    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and comm(entry.name) == "postgres":
            fields = _proc_stat(entry.name)
            if fields and comm(fields[1]) != "postgres":
                return int(entry.name)
    return 0


def _redis_cpu() -> float:
    import redis

    try:
        info = redis.Redis.from_url(BROKER).info("cpu")
    except redis.RedisError:
        return 0.0
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def _machine_busy() -> float:
    """CPU-seconds every process on the machine spent so far (/proc/stat, all cores)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


class CpuSnapshot:
    def __init__(self, workers: float, postgres: float, redis: float, own: float, machine: float):
        self.workers, self.postgres, self.redis = workers, postgres, redis
        self.own, self.machine = own, machine

    def minus(self, before: CpuSnapshot) -> CpuSnapshot:
        return CpuSnapshot(
            self.workers - before.workers,
            self.postgres - before.postgres,
            self.redis - before.redis,
            self.own - before.own,
            self.machine - before.machine,
        )

    def report(self, calls: int, wall: float) -> str:
        per_call = (
            f"workers {self.workers * 1000 / calls:.1f}, PostgreSQL "
            f"{self.postgres * 1000 / calls:.1f}, Redis {self.redis * 1000 / calls:.1f}, stub "
            f"server and this process {self.own * 1000 / calls:.1f}"
        )
        ours = self.workers + self.postgres + self.redis + self.own
        return (
            f"CPU while the run ran: workers {self.workers:.1f} s, PostgreSQL "
            f"{self.postgres:.1f} s, Redis {self.redis:.1f} s, stub server and this process "
            f"{self.own:.1f} s = {ours:.1f} s of {wall * (os.cpu_count() or 1):.1f} core-seconds"
            f"; the machine's other load {max(self.machine - ours, 0):.1f} s\n"
            f"CPU per model call (ms): {per_call}"
        )


def cpu_snapshot(workers: list[subprocess.Popen]) -> CpuSnapshot:
    return CpuSnapshot(
        workers=sum(_ticks(_proc_stat(worker.pid), 11, 12) for worker in workers),
        postgres=_postgres_cpu(),
        redis=_redis_cpu(),
        own=time.process_time(),
        machine=_machine_busy(),
    )


def start_workers(count: int, threads: int, var_dir: str) -> list[subprocess.Popen]:
    from config.celery import worker_argv

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
    """Until every worker consumes: a worker beats first when it starts, before it connects
    to the broker, so the study's clock would otherwise run through the workers' start."""
    from config.celery import app
    from patientagentbench.models import WorkerHeartbeat
    from patientagentbench.runs.workers import worker_alive

    deadline = time.monotonic() + 60
    while (
        WorkerHeartbeat.objects.count() < count
        or not worker_alive()
        or len(app.control.ping(timeout=0.5)) < count
    ):
        if time.monotonic() > deadline:
            raise SystemExit("workers did not start")
        time.sleep(0.2)


def sequential_line(server, suite, models, study_runs: int, runs: int, study_wall: float) -> str:
    """The plain sequential loop's time for the study: measured on `runs` of each task ×
    model (the study itself when `runs` reaches its runs), scaled by model calls."""
    study_calls = len(server.requests)
    server.reset()
    runs = min(runs, study_runs)
    tasks = list(suite.tasks.all())
    sample_wall, sample_jobs = sequential_loop(suite, tasks, models, runs)
    sample_calls = len(server.requests)
    if runs == study_runs:
        full, how = sample_wall, f"measured on the whole study ({sample_jobs} jobs)"
    else:
        full = sample_wall * study_calls / sample_calls
        how = (
            f"{sample_wall:.1f} s measured on {sample_jobs} jobs ({len(tasks)} tasks × "
            f"{len(models)} models × {runs} run{'s' if runs > 1 else ''}, {sample_calls} model "
            f"calls), scaled by model calls × {study_calls}/{sample_calls}"
        )
    return f"plain sequential loop: {full:.1f} s ({how}); speed-up {full / study_wall:.1f}×"


def sequential_loop(suite, tasks, models, runs: int) -> tuple[float, int]:
    """Each task × model `runs` times, one after another in one process: no workers, no
    database writes."""
    from patientagentbench.conversation import TaskUser, run_conversation
    from patientagentbench.providers.factory import build_provider
    from patientagentbench.providers.types import CallContext
    from patientagentbench.runs.worlds import build_world

    jobs = [(task, model) for task in tasks for model in models for _ in range(runs)]
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
