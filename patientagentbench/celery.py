import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "patientagentbench.settings")

app = Celery("patientagentbench")
app.config_from_object("django.conf:settings", namespace="CELERY")


def worker_argv(concurrency: int, loglevel: str = "INFO", hostname: str = "") -> list[str]:
    """The command line of a worker process. Provider calls wait on the network, so a thread
    pool is the efficient shape; every place that starts a worker uses this one."""
    import sys

    argv = [sys.executable, "-m", "celery", "-A", "patientagentbench", "worker"]
    argv += ["--pool", "threads", "--concurrency", str(concurrency), "--loglevel", loglevel]
    return argv + (["--hostname", hostname] if hostname else [])
