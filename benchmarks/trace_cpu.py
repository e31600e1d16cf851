"""CPU per model call of executing traces, in one process, without Celery.

The pipeline benchmark (benchmarks/pipeline.py) is CPU-bound on a small machine: what limits
it is the CPU each model call costs the worker and the database, not the number of threads.
This runs the same kind of job — office-19 traces of stub models against the local
OpenAI-compatible stub, with latency 0, in a subprocess so its CPU is not counted here —
through `execute_trace(trace_id, worker="bench")`, one after another, and prints:

- this process's CPU (`time.process_time()`) per model call and per trace, over the whole
  timed pass and over each of --chunks parts (min and median: the machine's other load
  inflates some parts);
- the PostgreSQL CPU (from /proc): this process's backends read just before each closes, the
  postmaster's forks, and every backend that ended meanwhile (its whole life: startup and
  exit included; other users of the server count too);
- Redis's CPU (`INFO cpu`: the whole server) and the stub server's;
- SQL queries per trace, by kind, from a separate pass under CaptureQueriesContext;
- the run's last trace, which finishes the run (metrics, and the analysis warm-up);
- --phases: CPU of each step of a trace; --profile: a cProfile (on CPU time) of the timed
  pass, by package and by function; --profile-last: of the last trace; --show-sql: one
  trace's queries.

Like a Celery worker (whose Django fix-up closes every database connection before and after
each task), it closes the connection after each trace unless --keep-connection. DEBUG is off
unless --debug (workers started without DEBUG in their environment run with it on). It
prints figures and asserts nothing. Creates and drops its own PostgreSQL database.

    .venv/bin/python benchmarks/trace_cpu.py [--runs 2] [--db postgres|sqlite] [--phases]
        [--profile] [--keep-connection] [--no-redis] [--debug]
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import io
import os
import pstats
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PG_ADMIN_URL = os.environ.get("BENCH_PG_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")
BENCH_DB = "pab_trace_cpu_bench"
REDIS_URL = os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/3")
MODELS = 6
WARMUP = 12  # traces run before timing: imports, first connections, caches

SERVER_SCRIPT = """
import sys
from tests.fakes.llm_server import FakeLLMServer
with FakeLLMServer(latency=0) as server:
    print(server.openai_base_url, flush=True)
    sys.stdin.read()
"""


def recreate_database(name: str = BENCH_DB) -> str:
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"


def drop_database(name: str = BENCH_DB) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def proc_times(pid: int) -> tuple[float, float]:
    """(utime + stime, cutime + cstime: its reaped children's) of a process, in seconds."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0, 0.0
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick


def proc_cpu_s(pid: int) -> float:
    return proc_times(pid)[0]


def proc_ppid(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:
        return 0


class PostgresCpu:
    """PostgreSQL CPU, two ways: this process's backends, each read just before it closes or
    goes back to the pool (a backend forked for the connection counts its whole life, a pooled
    one from its checkout; what it does after the read, exiting, is missed), and the postmaster's own CPU plus its reaped children's
    (every backend that ended, other users' included)."""

    def __init__(self) -> None:
        self.backend_s = 0.0
        self.postmaster = 0
        self._pid = 0
        self._start = 0.0
        self._postmaster_start = (0.0, 0.0)
        self._seen: set[int] = set()

    def connected(self, sender, connection, **kwargs) -> None:
        if connection.vendor != "postgresql":
            return
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self._pid = cursor.fetchone()[0]
        if not self.postmaster:
            self.postmaster = proc_ppid(self._pid)
        # A new backend counts its whole life; one the connection pool hands out again counts
        # from now (reading its whole life on every checkout counted it once per trace).
        self._start = proc_cpu_s(self._pid) if self._pid in self._seen else 0.0
        self._seen.add(self._pid)

    def closing(self) -> None:
        if self._pid:
            self.backend_s += proc_cpu_s(self._pid) - self._start
            self._pid = 0

    def reset(self) -> None:
        self.backend_s = 0.0
        if self._pid:
            self._start = proc_cpu_s(self._pid)
        self._postmaster_start = proc_times(self.postmaster) if self.postmaster else (0.0, 0.0)

    def total(self) -> tuple[float, float, float]:
        """(this process's backends, the postmaster itself, the backends that ended)."""
        backends = self.backend_s + (proc_cpu_s(self._pid) - self._start if self._pid else 0.0)
        if not self.postmaster:
            return backends, 0.0, 0.0
        own, children = proc_times(self.postmaster)
        return (
            backends,
            own - self._postmaster_start[0],
            children - self._postmaster_start[1],
        )


def redis_cpu_s() -> float:
    import redis

    info = redis.Redis.from_url(REDIS_URL).info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def query_kind(sql: str) -> str:
    """A query's shape: its verb and table, literals and column lists dropped."""
    sql = sql.strip()
    verb = sql.split(None, 1)[0].upper()
    if verb == "SELECT":
        table = re.search(r'\bFROM\s+"?(\w+)"?', sql)
        joins = len(re.findall(r"\bJOIN\b", sql))
        suffix = f" +{joins} join" if joins else ""
        if " FOR UPDATE" in sql:
            suffix += " FOR UPDATE"
        if "COUNT(" in sql:
            suffix += " COUNT"
        if re.search(r"\bLIMIT 1\b", sql) and "SELECT 1 AS" in sql:
            suffix += " EXISTS"
        return f"SELECT {table.group(1) if table else '?'}{suffix}"
    if verb in ("UPDATE", "INSERT", "DELETE"):
        table = re.search(r'\b(?:UPDATE|INTO|FROM)\s+"?(\w+)"?', sql)
        return f"{verb} {table.group(1) if table else '?'}"
    return verb


BUCKETS = (
    ("openai", "openai SDK"),
    ("httpx", "httpx"),
    ("httpcore", "httpcore"),
    ("h11", "h11"),
    ("pydantic", "pydantic"),
    ("django/db", "django.db (ORM)"),
    ("psycopg", "psycopg"),
    ("redis", "redis client"),
    ("patientagentbench/runs", "pab runs"),
    ("patientagentbench/results", "pab results"),
    ("patientagentbench/analysis", "pab analysis"),
    ("patientagentbench/providers", "pab providers"),
    ("patientagentbench/conversation", "pab conversation"),
    ("sandbox", "sandbox"),
    ("patientagentbench", "pab other"),
    ("django", "django other"),
    ("/json/", "json"),
    ("logging", "logging"),
    ("ssl", "ssl"),
    ("socket", "socket"),
    ("{", "builtins"),
)


def bucket_of(filename: str) -> str:
    for needle, name in BUCKETS:
        if needle in filename:
            return name
    return "other stdlib"


def print_profile(profile: cProfile.Profile, calls: int) -> None:
    stats = pstats.Stats(profile)
    by_bucket: dict[str, float] = collections.defaultdict(float)
    for (filename, _line, _name), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():
        by_bucket[bucket_of(filename)] += tottime
    total = sum(by_bucket.values())
    print(
        f"\ncProfile (CPU own time by package; {total * 1000 / calls:.2f} ms per call under the profiler):"
    )
    for name, seconds in sorted(by_bucket.items(), key=lambda kv: -kv[1]):
        print(f"  {name:<22} {seconds * 1000 / calls:6.2f} ms/call  {100 * seconds / total:5.1f}%")
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(45)
    print("\ncumulative, top 45:")
    print(_trim(out.getvalue()))
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(30)
    print("\nown time, top 30:")
    print(_trim(out.getvalue()))


def _trim(text: str) -> str:
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls")), 0)
    return "\n".join(line.replace(str(ROOT) + "/", "") for line in lines[start:] if line.strip())


# Steps of a trace, timed inclusively (process CPU) with --phases: (module, attribute).
PHASES = (
    ("patientagentbench.runs.jobs", "claim"),
    ("patientagentbench.runs.jobs", "mark_batch_running"),
    ("patientagentbench.runs.execution", "_converse"),
    ("patientagentbench.runs.jobs", "check_may_continue"),
    ("patientagentbench.runs.jobs", "provider_slot"),
    ("patientagentbench.providers.openai_chat", "OpenAIChatProvider.complete"),
    ("patientagentbench.providers.openai_chat", "completion_from_response"),
    ("patientagentbench.runs.jobs", "charge"),
    ("patientagentbench.runs.execution", "build_world"),
    ("patientagentbench.runs.execution", "_save_result"),
    ("patientagentbench.runs.execution", "score_trace"),
    ("patientagentbench.runs.execution", "finish_run_if_done"),
)


class PhaseTimer:
    """Wraps each of PHASES to add up the process CPU spent inside it."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = collections.defaultdict(float)
        self.count: collections.Counter = collections.Counter()

    def install(self) -> None:
        import contextlib
        import importlib

        for module_name, dotted in PHASES:
            owner = importlib.import_module(module_name)
            *owners, attribute = dotted.split(".")
            for name in owners:
                owner = getattr(owner, name)
            original = getattr(owner, attribute)
            label = f"{module_name.rsplit('.', 1)[-1]}.{dotted}"
            if attribute == "provider_slot":
                wrapped = self._context(original, label, contextlib)
            else:
                wrapped = self._function(original, label)
            setattr(owner, attribute, wrapped)

    def _function(self, original, label):
        def timed(*args, **kwargs):
            started = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[label] += time.process_time() - started
                self.count[label] += 1

        return timed

    def _context(self, original, label, contextlib):
        @contextlib.contextmanager
        def timed(*args, **kwargs):
            manager = original(*args, **kwargs)
            started = time.process_time()
            manager.__enter__()
            self.seconds[label + " (enter)"] += time.process_time() - started
            try:
                yield
            finally:
                started = time.process_time()
                manager.__exit__(None, None, None)
                self.seconds[label + " (exit)"] += time.process_time() - started

        return timed

    def reset(self) -> None:
        self.seconds.clear()
        self.count.clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=2, help="repetitions per (task, model)")
    parser.add_argument("--db", choices=("postgres", "sqlite"), default="postgres")
    parser.add_argument("--profile", action="store_true", help="cProfile the timed pass")
    parser.add_argument("--profile-out", default="", help="also save the profile to this file")
    parser.add_argument("--keep-connection", action="store_true", help="no reconnect per trace")
    parser.add_argument("--no-redis", action="store_true", help="no Redis concurrency slots")
    parser.add_argument("--debug", action="store_true", help="DEBUG=true (as workers default)")
    parser.add_argument("--phases", action="store_true", help="CPU of each step of a trace")
    parser.add_argument("--show-sql", action="store_true", help="print one trace's queries")
    parser.add_argument(
        "--profile-last", action="store_true", help="cProfile the last trace (ends the run)"
    )
    parser.add_argument("--query-sample", type=int, default=30, help="traces in the SQL pass")
    parser.add_argument(
        "--chunks", type=int, default=5, help="the timed pass in this many parts (min, median)"
    )
    args = parser.parse_args()

    var_dir = tempfile.mkdtemp(prefix="pab-trace-cpu-")
    env = {
        "PAB_VAR_DIR": var_dir,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "true" if args.debug else "false",
        "SECRET_KEY": "trace-cpu-bench",
        "LOG_LEVEL": "WARNING",
        "CELERY_BROKER_URL": "memory://" if args.no_redis else REDIS_URL,
        "CONCURRENCY_REDIS_URL": "" if args.no_redis else REDIS_URL,
    }
    if args.db == "postgres":
        env["DATABASE_URL"] = recreate_database()
    else:
        env["DATABASE_URL"] = f"sqlite:///{var_dir}/bench.sqlite3"
    os.environ.update(env)

    server = subprocess.Popen(
        [sys.executable, "-c", SERVER_SCRIPT],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = server.stdout.readline().strip()
        run_bench(args, base_url, server.pid)
    finally:
        server.stdin.close()
        server.wait(timeout=10)
        if args.db == "postgres":
            from django.db import connections

            connections.close_all()
            drop_database()


def run_bench(args, base_url: str, server_pid: int) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.db.backends.signals import connection_created
    from django.test.utils import CaptureQueriesContext

    from patientagentbench.models import ModelConfig, Suite, Trace
    from patientagentbench.runs.execution import execute_trace
    from patientagentbench.runs.launch import launch_run

    call_command("migrate", verbosity=0)
    call_command("install_suites", verbosity=0, stdout=io.StringIO())
    pg = PostgresCpu()
    connection_created.connect(pg.connected)
    connection.close()  # the next connection is one the signal sees

    models = [
        ModelConfig.objects.create(
            name=f"stub-{i}",
            provider="openai_compatible",
            model_id=f"stub-model-{i}",
            base_url=base_url,
            max_concurrency=64,
        )
        for i in range(MODELS)
    ]
    suite = Suite.objects.get(name="office-19")
    run = launch_run(suite=suite, models=models, repetitions=args.runs, enqueue=False)
    # Task-major like a launch's queue, but interleaved so every sample covers every task.
    ids = list(
        run.traces.order_by("repetition", "task_id", "model_id").values_list("pk", flat=True)
    )
    # The last trace ends the run: recompute its metrics. Timed on its own below.
    last = ids.pop()
    sample, ids = ids[: args.query_sample], ids[args.query_sample :]
    warmup, timed = ids[:WARMUP], ids[WARMUP:]

    phases = PhaseTimer() if args.phases else None
    if phases:
        phases.install()

    def execute(trace_id: int) -> None:
        execute_trace(trace_id, worker="bench")
        if not args.keep_connection:
            pg.closing()
            closing = time.process_time()
            connection.close()
            if phases:
                phases.seconds["connection.close"] += time.process_time() - closing

    def timed_execute(trace_id: int) -> None:
        """The timed pass's traces, named apart for a sampling profiler (py-spy)."""
        execute(trace_id)

    for trace_id in warmup:
        execute(trace_id)

    # The timed pass.
    if phases:
        phases.reset()
    # Timed on CPU, not the wall: waiting for the database or the stub is not CPU.
    profile = cProfile.Profile(time.process_time) if args.profile else None
    redis_before = 0.0 if args.no_redis else redis_cpu_s()
    server_before = proc_cpu_s(server_pid)
    pg.reset()
    started_cpu, started_wall = time.process_time(), time.perf_counter()
    if profile:
        profile.enable()
    chunk_cpu = []  # (CPU s, trace ids) of each part, against the machine's noisy load
    size = -(-len(timed) // args.chunks)
    for start in range(0, len(timed), size):
        part = timed[start : start + size]
        part_started = time.process_time()
        for trace_id in part:
            timed_execute(trace_id)
        chunk_cpu.append((time.process_time() - part_started, part))
    if profile:
        profile.disable()
    cpu = time.process_time() - started_cpu
    wall = time.perf_counter() - started_wall
    pg_backend, pg_postmaster, pg_ended = pg.total()
    redis_used = 0.0 if args.no_redis else redis_cpu_s() - redis_before
    server_used = proc_cpu_s(server_pid) - server_before
    calls_of = {
        pk: sum(1 for m in messages if m["role"] == "assistant")
        for pk, messages in Trace.objects.filter(pk__in=timed).values_list("pk", "messages")
    }
    calls = sum(calls_of.values())
    per_call = sorted(
        part_cpu * 1000 / sum(calls_of[pk] for pk in part) for part_cpu, part in chunk_cpu
    )
    statuses = collections.Counter(
        Trace.objects.filter(pk__in=timed).values_list("status", flat=True)
    )

    phase_seconds = dict(phases.seconds) if phases else {}

    # The SQL pass: queries per trace, by kind.
    kinds: collections.Counter = collections.Counter()
    n_queries = 0
    for trace_id in sample:
        with CaptureQueriesContext(connection) as captured:
            execute_trace(trace_id, worker="bench")
        n_queries += len(captured.captured_queries)
        if args.show_sql and trace_id == sample[0]:
            for query in captured.captured_queries:
                print(f"SQL: {query['sql'][:600]}")
        kinds.update(query_kind(q["sql"]) for q in captured.captured_queries)
        if not args.keep_connection:
            pg.closing()
            connection.close()

    # The run's last trace, which finishes the run.
    last_profile = cProfile.Profile(time.process_time) if args.profile_last else None
    with CaptureQueriesContext(connection) as captured:
        last_cpu = time.process_time()
        if last_profile:
            last_profile.enable()
        execute_trace(last, worker="bench")
        if last_profile:
            last_profile.disable()
        last_cpu = time.process_time() - last_cpu
    run.refresh_from_db()

    n = len(timed)
    mode = "PostgreSQL" if args.db == "postgres" else "SQLite"
    print(
        f"{mode}; DEBUG={'on' if args.debug else 'off'}; "
        f"{'one connection kept' if args.keep_connection else 'reconnect per trace (as Celery)'}"
        "; "
        f"{'no slots' if args.no_redis else 'Redis slots'}; profile {'on' if profile else 'off'}"
    )
    print(f"timed: {n} traces, {calls} model calls ({calls / n:.2f} per trace); {dict(statuses)}")
    print(f"wall {wall:.2f} s; this process CPU {cpu:.2f} s")
    print(f"CPU per model call: {cpu * 1000 / calls:.2f} ms (per trace {cpu * 1000 / n:.2f} ms)")
    print(
        f"  by part ({len(per_call)} parts): min {per_call[0]:.2f}, "
        f"median {per_call[len(per_call) // 2]:.2f}, max {per_call[-1]:.2f} ms per call"
    )
    if args.db == "postgres":
        print(
            f"PostgreSQL CPU per call: {pg_backend * 1000 / calls:.2f} ms in this process's "
            f"backends + {pg_postmaster * 1000 / calls:.2f} ms postmaster (forks); all ended "
            f"backends (others' too): {pg_ended * 1000 / calls:.2f} ms"
        )
    if not args.no_redis:
        print(f"Redis CPU per call: {redis_used * 1000 / calls:.2f} ms (whole server)")
    print(f"stub server CPU per call: {server_used * 1000 / calls:.2f} ms (not counted above)")
    print(f"SQL queries per trace: {n_queries / len(sample):.1f} (over {len(sample)} traces)")
    for kind, count in kinds.most_common():
        print(f"  {count / len(sample):5.2f}  {kind}")
    print(
        f"last trace (finishes run {run.pk}, status {run.status}): {last_cpu * 1000:.0f} ms CPU, "
        f"{len(captured.captured_queries)} queries"
    )
    if phases:
        print("CPU by step (inclusive; ms per model call):")
        for label, seconds in phase_seconds.items():
            print(f"  {seconds * 1000 / calls:6.2f}  {label}")
        top = ("claim", "mark_batch_running", "_converse", "_save_result", "finish_run_if_done")
        rest = cpu - sum(
            seconds
            for label, seconds in phase_seconds.items()
            if label.endswith(top) or label == "connection.close"
        )
        print(f"  {rest * 1000 / calls:6.2f}  the rest of execute_trace (loading the trace, …)")
    if last_profile:
        out = io.StringIO()
        pstats.Stats(last_profile, stream=out).sort_stats("cumulative").print_stats(40)
        print("\nthe last trace, cumulative, top 40:")
        print(_trim(out.getvalue()))
    if profile:
        print_profile(profile, calls)
        if args.profile_out:
            profile.dump_stats(args.profile_out)


if __name__ == "__main__":
    main()
