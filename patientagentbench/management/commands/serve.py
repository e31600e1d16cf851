import contextlib
import signal
import subprocess
import sys

from django.core.management.base import BaseCommand

from patientagentbench.celery import worker_argv


class Command(BaseCommand):
    help = "Serve the web app and a Celery worker together until Ctrl-C (the demo's runner)."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--concurrency", type=int, default=4, help="Worker threads")

    def handle(self, *args, **options):
        worker = subprocess.Popen(worker_argv(options["concurrency"]))
        web = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "runserver",
                "--noreload",
                f"{options['host']}:{options['port']}",
            ]
        )
        self.stdout.write(
            f"Web app on http://{options['host']}:{options['port']}/accounts/login/ "
            "with a Celery worker. Ctrl-C stops both."
        )
        try:
            while worker.poll() is None and web.poll() is None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    web.wait(timeout=1)
        except KeyboardInterrupt:
            pass
        finally:
            for process in (web, worker):
                if process.poll() is None:
                    process.send_signal(signal.SIGINT if process is worker else signal.SIGTERM)
            for process in (web, worker):
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
