"""Limits: how big a launch may be, and a per-provider concurrency limit shared by every
worker.

Launch sizes are bounded in one place, so the web form and the command line refuse the same
things: runs per cell, iterations and patient turns, cases in a case set, and the job count
(tasks × models × temperatures × runs) of one run.

With Redis (CI, production) the concurrency slots are a Redis sorted set, so workers on many
machines share them; with the embedded filesystem broker the slots are lock files, shared by
every worker process on this machine. Both expire a holder that died mid-call. Redis going
away for a moment (a restart, a failover) is waited out: a slot is a courtesy to the
provider, and a trace must not end as an error because of it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import time
import uuid
from pathlib import Path

from django.conf import settings

log = logging.getLogger(__name__)

_STALE_AFTER_S = 600.0
_POLL_S = 0.02
_REDIS_RETRY_MAX_S = 2.0  # the longest pause between tries while Redis is away

# --- launch sizes ------------------------------------------------------------------------

MAX_REPETITIONS = 100  # runs (N) per cell
MAX_ITERATIONS = 50  # agent steps per turn
MAX_TURNS = 50  # patient turns per conversation
MAX_CASES = 2000  # cases in one generated case set
MAX_JOBS = 50_000  # traces in one run: tasks × models × temperatures × runs
TRACE_BATCH = 1000  # trace rows written per INSERT when a run is created


class LaunchTooLarge(ValueError):
    """A launch beyond a limit; its message says which and by how much."""


def check_launch_size(
    *,
    tasks: int,
    models: int,
    temperatures: int,
    repetitions: int,
    max_iterations: int = 1,
    max_turns: int = 1,
) -> int:
    """The run's job count, or LaunchTooLarge naming the limit it breaks."""
    bounded = (
        ("runs", repetitions, MAX_REPETITIONS),
        ("max iterations", max_iterations, MAX_ITERATIONS),
        ("max turns", max_turns, MAX_TURNS),
    )
    for what, value, limit in bounded:
        if not 1 <= value <= limit:
            raise LaunchTooLarge(f"{what} must be between 1 and {limit} (got {value}).")
    jobs = tasks * models * temperatures * repetitions
    if jobs > MAX_JOBS:
        raise LaunchTooLarge(
            f"{tasks} tasks × {models} models × {temperatures} temperatures × {repetitions} "
            f"runs = {jobs:,} jobs; one run holds at most {MAX_JOBS:,}. Launch fewer tasks, "
            "models, temperatures or runs, or split it into several runs."
        )
    return jobs


def check_case_count(count: int) -> int:
    if not 1 <= count <= MAX_CASES:
        raise LaunchTooLarge(f"A case set holds 1 to {MAX_CASES} cases (got {count}).")
    return count


# --- concurrency slots -------------------------------------------------------------------


@contextlib.contextmanager
def provider_slot(key: str, limit: int):
    if limit <= 0:
        yield
        return
    if settings.CONCURRENCY_REDIS_URL:
        with _redis_slot(key, limit):
            yield
    else:
        with _file_slot(key, limit):
            yield


_redis_client = None


def _redis():
    global _redis_client
    if _redis_client is None:
        import redis

        _redis_client = redis.Redis.from_url(settings.CONCURRENCY_REDIS_URL)
    return _redis_client


# Atomically: drop holders older than the stale cutoff, then take a slot if one is free.
_ACQUIRE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
  redis.call('EXPIRE', KEYS[1], 3600)
  return 1
end
return 0
"""


@contextlib.contextmanager
def _redis_slot(key: str, limit: int):
    client = _redis()
    name = f"pab:slots:{key}"
    token = uuid.uuid4().hex
    acquire = client.register_script(_ACQUIRE)
    _until_redis_answers(lambda: _take_slot(acquire, name, limit, token))
    try:
        yield
    finally:
        try:
            client.zrem(name, token)
        except _redis_errors() as exc:
            # Gone with a restart, or expired as stale within _STALE_AFTER_S.
            log.warning("could not release a provider slot (%s); it expires by itself", exc)


def _take_slot(acquire, name: str, limit: int, token: str) -> None:
    while True:
        now = time.time()
        if acquire(keys=[name], args=[now - _STALE_AFTER_S, limit, now, token]):
            return
        time.sleep(_POLL_S)


def _until_redis_answers(attempt):
    """`attempt()`, tried again while Redis is unreachable, for at most REDIS_OUTAGE_PATIENCE_S."""
    deadline = time.monotonic() + float(settings.REDIS_OUTAGE_PATIENCE_S)
    pause = 0.1
    while True:
        try:
            return attempt()
        except _redis_errors() as exc:
            if time.monotonic() + pause > deadline:
                raise
            log.warning("Redis is not answering (%s); trying again in %.1f s", exc, pause)
            time.sleep(pause)
            pause = min(pause * 2, _REDIS_RETRY_MAX_S)


def _redis_errors() -> tuple[type[Exception], ...]:
    import redis

    # BusyLoadingError (a restarted Redis reading its file) is a ConnectionError.
    return (redis.ConnectionError, redis.TimeoutError)


@contextlib.contextmanager
def _file_slot(key: str, limit: int):
    folder = Path(settings.VAR_DIR) / "slots" / hashlib.sha1(key.encode()).hexdigest()[:16]
    folder.mkdir(parents=True, exist_ok=True)
    while True:
        for index in range(limit):
            handle = open(folder / f"{index}.lock", "w")  # noqa: SIM115 - held across the yield
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
                handle.close()
            return
        time.sleep(_POLL_S)


def slots_in_use(key: str) -> int:
    """How many holders a key has right now (for tests and the run page)."""
    if settings.CONCURRENCY_REDIS_URL:
        return int(_redis().zcard(f"pab:slots:{key}"))
    return 0
