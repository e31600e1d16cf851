from django.core.management.base import BaseCommand, CommandError

from jury.models import JuryRun
from jury.scoring import resume_jury
from patientagentbench.runs.workers import worker_alive


class Command(BaseCommand):
    help = (
        "Queue a scoring's unfinished judge jobs again: cancelled, stopped or failed ones "
        "(a failed job keeps its attempt count), and, on a "
        "running scoring, those held by workers that stopped reporting; and send every queued "
        "job to the workers again (after the job queue was away). Verdicts already stored are "
        "kept; a job is never scored twice."
    )

    def add_arguments(self, parser):
        parser.add_argument("jury_run_id", type=int, help="Scoring (jury run) id")

    def handle(self, *args, **options):
        jury_run_id = options["jury_run_id"]
        try:
            requeued = resume_jury(jury_run_id)
        except JuryRun.DoesNotExist as exc:
            raise CommandError(f"No scoring {jury_run_id}.") from exc
        jury_run = JuryRun.objects.get(pk=jury_run_id)
        self.stdout.write(
            f"Scoring {jury_run_id} ({jury_run.status}): {requeued} judge jobs queued again."
        )
        if jury_run.is_active and not worker_alive():
            self.stderr.write(
                "No Celery worker is reporting; the jobs wait until one runs "
                "(`celery -A config worker` or `make demo`)."
            )
