"""Celery task bodies: a few lines that call the domain functions in runs.py."""

import socket
import threading
import time

from celery import shared_task
from celery.signals import worker_ready

from patientagentbench import runs

HEARTBEAT_EVERY_S = 5


@shared_task(acks_late=True, ignore_result=True)
def execute_trace_job(trace_id: int) -> None:
    runs.execute_trace(trace_id)


@shared_task(acks_late=True, ignore_result=True)
def generate_case_set_job(job_id: int) -> None:
    from patientagentbench.case_sets import run_generation_job

    run_generation_job(job_id)


@worker_ready.connect
def start_heartbeat(sender=None, **kwargs) -> None:
    hostname = getattr(sender, "hostname", None) or socket.gethostname()

    def loop():
        from django.db import close_old_connections

        while True:
            time.sleep(HEARTBEAT_EVERY_S)
            _beat_once(hostname)
            close_old_connections()

    _beat_once(hostname)
    threading.Thread(target=loop, name="pab-heartbeat", daemon=True).start()


def _beat_once(hostname: str) -> bool:
    try:
        runs.beat(hostname)
        return True
    except Exception:  # noqa: BLE001 - a missed beat must not kill the worker
        return False
