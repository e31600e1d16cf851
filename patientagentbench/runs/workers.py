"""Worker heartbeats and recovery of lost work.

Each worker process beats: it writes its row every WORKER_HEARTBEAT_S seconds, under an id of
its own (Celery node name, pid and a nonce, never reused). So the CLI and the pages can tell
when no worker is running instead of waiting for ever, and a job's claim can name the process
holding it (`Trace.worker`, `JudgeJob.worker`).

Every beat, a worker's main process also recovers what lost workers left behind — a worker
killed mid-job (SIGKILL, OOM, a lost machine) acknowledges nothing and tells nobody:

- a claim whose worker has not beaten for WORKER_DEAD_AFTER_S is taken back: the job is queued
  and sent again (its attempt was counted when it was claimed), or, after JOB_MAX_ATTEMPTS,
  ended as an error;
- once per lost worker, every queued job of an active run is sent again, because a dead
  worker takes the messages it had already fetched with it. Sending a job twice is harmless:
  a job is claimed once, and only the claim's holder may store its result.

The pipeline and the jury register what to take back (`on_lost_claims`, `on_lost_worker`),
so this module imports neither. Times are the database's clock, so workers on machines whose
clocks disagree still judge each other's heartbeats alike.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Mapping
from datetime import timedelta

from celery.signals import worker_init, worker_process_init, worker_ready
from django.conf import settings
from django.db import close_old_connections, connections
from django.db.models.functions import Now

from patientagentbench.models import WorkerHeartbeat

log = logging.getLogger(__name__)

PRUNE_AFTER = timedelta(days=1)  # rows of long-dead workers are deleted after this

_identity = ""  # this process's worker id; blank outside a worker (inline execution)
_lost_claims_hooks: list[Callable[[list[str]], int]] = []
_lost_worker_hooks: list[Callable[[], int]] = []


def heartbeat_every_s() -> float:
    return float(settings.WORKER_HEARTBEAT_S)


def dead_after() -> timedelta:
    """How long a worker may stay silent before its claims are taken back."""
    return timedelta(seconds=float(settings.WORKER_DEAD_AFTER_S))


def current_worker() -> str:
    """This worker process's id, which the Celery tasks' claims record (blank outside a
    worker; jobs run inline claim with a blank id)."""
    return _identity


def new_identity(nodename: str) -> str:
    return f"{nodename or socket.gethostname()}#{os.getpid()}#{secrets.token_hex(3)}"


def live_workers():
    """Ids of the workers that beat recently (a queryset, usable inside another query)."""
    return WorkerHeartbeat.objects.filter(seen_at__gte=Now() - dead_after()).values("hostname")


def worker_alive() -> bool:
    return WorkerHeartbeat.objects.filter(seen_at__gte=Now() - dead_after()).exists()


def beat(worker_id: str) -> None:
    WorkerHeartbeat.objects.update_or_create(
        hostname=worker_id, defaults={"seen_at": Now(), "reaped_at": None}
    )


# --- what to take back from lost workers ---------------------------------------------------


def on_lost_claims(hook: Callable[[list[str]], int]) -> Callable[[list[str]], int]:
    """Register `hook(live_ids)`: take back the claims held by any worker not in `live_ids`;
    returns how many it took back. Must be safe to run in several workers at once."""
    _lost_claims_hooks.append(hook)
    return hook


def on_lost_worker(hook: Callable[[], int]) -> Callable[[], int]:
    """Register `hook()`: send the queued jobs of active runs again (a lost worker's
    fetched messages are gone with it). Called once per lost worker."""
    _lost_worker_hooks.append(hook)
    return hook


def recover_lost_work() -> int:
    """Take back lost workers' claims, resend queued jobs once per newly lost worker, and
    prune rows of workers long gone. Returns how many claims were taken back."""
    live = list(live_workers().values_list("hostname", flat=True))
    taken = sum(hook(live) for hook in _lost_claims_hooks)
    silent = WorkerHeartbeat.objects.filter(
        seen_at__lt=Now() - dead_after(), reaped_at__isnull=True
    ).values_list("hostname", flat=True)
    newly_lost = [worker_id for worker_id in silent if _mark_reaped(worker_id)]
    if newly_lost:
        log.warning("workers stopped beating: %s; resending queued jobs", ", ".join(newly_lost))
        resend_queued_jobs()
    WorkerHeartbeat.objects.filter(
        seen_at__lt=Now() - PRUNE_AFTER, reaped_at__isnull=False
    ).delete()
    return taken


def resend_queued_jobs() -> int:
    """Send every queued job of active runs again; how many were sent."""
    return sum(hook() or 0 for hook in _lost_worker_hooks)


def _mark_reaped(worker_id: str) -> bool:
    """Of two workers noticing the same loss, one wins the row (and resends)."""
    return bool(
        WorkerHeartbeat.objects.filter(
            hostname=worker_id, reaped_at__isnull=True, seen_at__lt=Now() - dead_after()
        ).update(reaped_at=Now())
    )


# --- the heartbeat in each worker process ---------------------------------------------------


@worker_init.connect
def no_connection_pool_across_fork(sender=None, **kwargs) -> None:
    """A prefork worker forks its children, now and whenever one dies, from a process that
    uses the database: they would inherit its connection pool, and a child closing it (as
    Celery does in each new child) ends the parent's connections too. So prefork workers
    connect per task, as without a pool (settings.DB_POOL_MAX_SIZE); thread workers keep it."""
    pool_cls = getattr(sender, "pool_cls", "")
    pool_name = pool_cls if isinstance(pool_cls, str) else getattr(pool_cls, "__module__", "")
    if "prefork" not in pool_name:
        return
    for connection in connections.all():
        connection.close()
        if getattr(connection, "pool", None):
            connection.close_pool()
        connection.settings_dict.get("OPTIONS", {}).pop("pool", None)


@worker_init.connect
def identify_worker(sender=None, **kwargs) -> None:
    """Before the worker takes any job: its id, and a first beat, so no claim names a worker
    without a row."""
    global _identity
    _identity = new_identity(getattr(sender, "hostname", "") or "")
    _beat_once(_identity)


@worker_ready.connect
def start_heartbeat(sender=None, **kwargs) -> None:
    """The main process beats and recovers lost work (the pool's children, if any, are
    forked by now, so no thread is forked with them)."""
    global _identity
    if not _identity:
        _identity = new_identity(getattr(sender, "hostname", "") or "")
        _beat_once(_identity)
    _start_loop(_identity, recover=True)


@worker_process_init.connect
def start_child_heartbeat(sender=None, **kwargs) -> None:
    """A prefork child runs jobs itself, so it claims under an id of its own and beats."""
    global _identity
    _identity = new_identity(str(sender or ""))
    _beat_once(_identity)
    _start_loop(_identity, recover=False)


def _start_loop(worker_id: str, recover: bool) -> None:
    def loop():
        while True:
            time.sleep(heartbeat_every_s())
            _beat_once(worker_id)
            if recover:
                _recover_once()
            close_old_connections()

    threading.Thread(target=loop, name="pab-heartbeat", daemon=True).start()


def _beat_once(worker_id: str) -> bool:
    try:
        beat(worker_id)
        return True
    except Exception:  # noqa: BLE001 - a missed beat must not kill the worker
        log.exception("heartbeat failed")
        return False


def _recover_once() -> None:
    try:
        recover_lost_work()
    except Exception:  # noqa: BLE001 - the next beat tries again
        log.exception("recovering lost work failed")


def worker_appears(grace_s: float = 8.0) -> bool:
    """A live worker beats every few seconds; give a starting one a moment before saying no.
    What `--wait` on the command line asks before it waits for jobs nobody will run."""
    deadline = time.monotonic() + grace_s
    while not worker_alive():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)
    return True


def progress_bar(counts: Mapping[str, int] | int, width: int = 30) -> str:
    """`[#####xxxx-----]`: `#` finished (done or error), `x` cancelled, `-` still to run, so a
    cancelled run never looks complete. A bare percent draws a one-part bar."""
    if isinstance(counts, int):
        filled = width * max(0, min(counts, 100)) // 100
        return "[" + "#" * filled + "-" * (width - filled) + "]"
    total = counts.get("total", 0)
    if not total:
        return "[" + "-" * width + "]"
    finished = counts.get("done", 0) + counts.get("error", 0)
    cancelled = counts.get("cancelled", 0)
    n_finished = width * finished // total
    n_cancelled = width * (finished + cancelled) // total - n_finished
    return (
        "[" + "#" * n_finished + "x" * n_cancelled + "-" * (width - n_finished - n_cancelled) + "]"
    )


def progress_words(counts: Mapping[str, int]) -> str:
    """`38 of 95 finished · 57 cancelled`, as the run pages say it."""
    finished = counts.get("done", 0) + counts.get("error", 0)
    words = f"{finished} of {counts.get('total', 0)} finished"
    if counts.get("cancelled"):
        words += f" · {counts['cancelled']} cancelled"
    return words
