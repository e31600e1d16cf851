from django.core.management.base import BaseCommand, CommandError

from patientagentbench.models import Run
from patientagentbench.runs.launch import resume_run
from patientagentbench.runs.workers import worker_alive


class Command(BaseCommand):
    help = (
        "Queue a run's unfinished traces again: cancelled or stopped ones, and, on a running "
        "run, those held by workers that stopped reporting. What is done is kept; a trace is "
        "never run twice."
    )

    def add_arguments(self, parser):
        parser.add_argument("run_id", type=int, help="Run id")

    def handle(self, *args, **options):
        run_id = options["run_id"]
        try:
            run = Run.objects.get(pk=run_id)
        except Run.DoesNotExist as exc:
            raise CommandError(f"No run {run_id}.") from exc
        if run.source != Run.Source.LAUNCHED:
            raise CommandError(f"Run {run_id} holds imported traces; there is nothing to run.")
        requeued = resume_run(run_id)
        run.refresh_from_db(fields=["status"])
        self.stdout.write(f"Run {run_id} ({run.status}): {requeued} jobs queued again.")
        if run.is_active and not worker_alive():
            self.stderr.write(
                "No Celery worker is reporting; the jobs wait until one runs "
                "(`celery -A config worker` or `make demo`)."
            )
