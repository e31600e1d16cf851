"""Worker heartbeats: each worker writes a row every few seconds, so the CLI and the pages
can tell when no worker is running instead of waiting for ever."""

from __future__ import annotations

import socket
import threading
import time
from datetime import timedelta

from celery.signals import worker_ready
from django.db import close_old_connections
from django.utils import timezone

from patientagentbench.models import WorkerHeartbeat

HEARTBEAT_EVERY_S = 5
HEARTBEAT_FRESH = timedelta(seconds=20)


def worker_alive() -> bool:
    return WorkerHeartbeat.objects.filter(seen_at__gte=timezone.now() - HEARTBEAT_FRESH).exists()


def beat(hostname: str) -> None:
    WorkerHeartbeat.objects.update_or_create(
        hostname=hostname, defaults={"seen_at": timezone.now()}
    )


@worker_ready.connect
def start_heartbeat(sender=None, **kwargs) -> None:
    hostname = getattr(sender, "hostname", None) or socket.gethostname()

    def loop():
        while True:
            time.sleep(HEARTBEAT_EVERY_S)
            _beat_once(hostname)
            close_old_connections()

    _beat_once(hostname)
    threading.Thread(target=loop, name="pab-heartbeat", daemon=True).start()


def _beat_once(hostname: str) -> bool:
    try:
        beat(hostname)
        return True
    except Exception:  # noqa: BLE001 - a missed beat must not kill the worker
        return False


def worker_appears(grace_s: float = 8.0) -> bool:
    """A live worker beats every few seconds; give a starting one a moment before saying no.
    What `--wait` on the command line asks before it waits for jobs nobody will run."""
    deadline = time.monotonic() + grace_s
    while not worker_alive():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)
    return True


def progress_bar(percent: int, width: int = 30) -> str:
    filled = width * percent // 100
    return "[" + "#" * filled + "-" * (width - filled) + "]"
