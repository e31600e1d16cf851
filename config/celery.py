import os

from celery import Celery

from patientagentbench.runs.reconnect import ResendAfterReconnect

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Celery's Django fixup runs Django's system checks as a worker starts, and the URL check
# imports every view (pandas, scipy, plotly): 3.1 CPU-s a start against 1.2 s without
# (measured here). The web server and every manage.py command run the same checks, so a worker
# repeats them for nothing; what a job needs it imports when it runs.
os.environ.setdefault("CELERY_SKIP_CHECKS", "1")

app = Celery("patientagentbench")
# Settings say how deliveries survive a lost worker: acks late, reject on worker lost, and on
# Redis a visibility timeout longer than the longest job (see settings.LONGEST_JOB_S).
app.config_from_object("django.conf:settings", namespace="CELERY")
# A broker restart can lose messages; the database knows what is queued (runs.reconnect).
app.steps["consumer"].add(ResendAfterReconnect)


def worker_argv(
    concurrency: int, loglevel: str = "INFO", hostname: str = "", pool: str = "threads"
) -> list[str]:
    """The command line of a worker process. Provider calls wait on the network, so a thread
    pool is the efficient shape; every place that starts a worker uses this one.

    Each worker process beats (patientagentbench.runs.workers) and, every beat, takes back
    the jobs of workers that stopped beating, so no separate beat or sweeper process is
    needed: `serve` runs one of these beside the web server, and that is the whole of it."""
    import sys

    argv = [sys.executable, "-m", "celery", "-A", "config", "worker"]
    argv += ["--pool", pool, "--concurrency", str(concurrency), "--loglevel", loglevel]
    return argv + (["--hostname", hostname] if hostname else [])
