import contextlib
import signal
import subprocess
import sys
import time

from django.core.management.base import BaseCommand, CommandError

from config.celery import worker_argv

# A worker that dies (killed, out of memory, a broker bug) is started again, as a process
# supervisor would; its lost jobs come back through the heartbeats. Dying this often within
# a minute means something is wrong that restarting will not fix.
MAX_WORKER_RESTARTS_PER_MINUTE = 5


def _interrupt(signum, frame):
    raise KeyboardInterrupt


class Command(BaseCommand):
    help = (
        "Serve the web app and a Celery worker together until Ctrl-C (the demo's runner); "
        "a worker that dies is started again."
    )

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--concurrency", type=int, default=4, help="Worker threads")

    def handle(self, *args, **options):
        # Ctrl-C, and a SIGTERM from a service manager or `docker stop`, stop both children;
        # set explicitly because a shell starting this in the background ignores SIGINT.
        for stop_signal in (signal.SIGINT, signal.SIGTERM):
            signal.signal(stop_signal, _interrupt)
        worker = self._start_worker(options["concurrency"])
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
        restarts: list[float] = []
        try:
            while web.poll() is None:
                if worker.poll() is not None:
                    worker = self._restart(worker, restarts, options["concurrency"])
                with contextlib.suppress(subprocess.TimeoutExpired):
                    web.wait(timeout=1)
        except KeyboardInterrupt:
            pass
        finally:
            self._stop(web, worker)

    def _start_worker(self, concurrency: int) -> subprocess.Popen:
        return subprocess.Popen(worker_argv(concurrency))

    def _restart(self, worker, restarts: list[float], concurrency: int) -> subprocess.Popen:
        now = time.monotonic()
        restarts[:] = [t for t in restarts if now - t < 60] + [now]
        if len(restarts) > MAX_WORKER_RESTARTS_PER_MINUTE:
            raise CommandError(
                f"The worker died {len(restarts)} times within a minute (last exit code "
                f"{worker.returncode}); stopping. Its log above says why."
            )
        self.stderr.write(f"The worker stopped (exit code {worker.returncode}); starting it again.")
        return self._start_worker(concurrency)

    @staticmethod
    def _stop(web, worker) -> None:
        for process in (web, worker):
            if process.poll() is None:
                process.send_signal(signal.SIGINT if process is worker else signal.SIGTERM)
        for process in (web, worker):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
