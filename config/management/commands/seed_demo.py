from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import BaseCommand

from annotation.demo import seed_jury_calibration, seed_review_demo, seed_team_rubric_demo
from jury.demo import seed_jury_demo
from patientagentbench.demo import DEFAULT_PASSWORD, DEMO_USERS, seed_pipeline_demo


class Command(BaseCommand):
    help = (
        "The one demo seeder: demo users, the simulated models, the suites, finished demo "
        "runs, the review demo (tracks, calibration rounds, a study) and the jury demo. "
        "Idempotent: running it again changes nothing but the passwords."
    )

    def add_arguments(self, parser):
        parser.add_argument("--password", default="", help="Password for every demo user")
        parser.add_argument("--repetitions", type=int, default=3)
        parser.add_argument("--scenario-repetitions", type=int, default=2)
        parser.add_argument(
            "--migrate",
            action="store_true",
            help="Apply migrations first, in this process (make demo: one Django start, not two)",
        )

    def handle(self, *args, **options):
        password = options["password"] or DEFAULT_PASSWORD
        if options["migrate"]:
            call_command("migrate", interactive=False, verbosity=0)
        say = self.say
        say("Seeding the demo: users, models and suites…")
        seed_pipeline_demo(password, options["repetitions"], options["scenario_repetitions"], say)
        # The shell may import every app: the review demo stands on the runs, the jury on both.
        say("Review demo: calibration rounds and a study…")
        say(seed_review_demo(User.objects.filter(username="researcher").first()))
        say("Jury demo: scoring the scenario run…")
        say(seed_jury_demo())
        say(seed_jury_calibration())  # after both: the jury takes the closed round
        say("Team-rubric demo: a study and a panel on a 7-point rubric…")
        say(seed_team_rubric_demo(User.objects.filter(username="researcher").first()))
        say(
            f"Demo users: {', '.join(u for u, _ in DEMO_USERS)} "
            f"(password: {password if not options['password'] else 'as given'})"
        )

    def say(self, line: str) -> None:
        """One step, printed at once: the whole seed takes minutes."""
        self.stdout.write(line)
        self.stdout.flush()
