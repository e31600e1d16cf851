from django.apps import apps
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction

from patientagentbench.models import ModelConfig, Run, Suite
from patientagentbench.roles import ADMIN, ALL_ROLES, CLINICIAN, RESEARCHER
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.suites.install import install_all_suites

DEFAULT_PASSWORD = "pab-demo-2026"
DEMO_RUN_LABEL = "demo: simulated agents on office-19"
DEMO_CASE_SET = "demo-cases-v1"
DEMO_CASE_COUNT, DEMO_CASE_SEED = 60, 20260309
DEMO_SCENARIO_LABEL = "demo: simulated agents with simulated patients"
DEMO_USERS = [
    ("admin", [ADMIN, RESEARCHER]),
    ("researcher", [RESEARCHER]),
    ("clinician1", [CLINICIAN]),
    ("clinician2", [CLINICIAN]),
    ("clinician3", [CLINICIAN]),
]
# sim-careless fails the way real agents do (simulated/careless.py), so the demo's
# correctness figures and transcripts show failures as well as good agents.
SIMULATED_MODELS = ["sim-steady", "sim-jittery", "sim-careless"]


class Command(BaseCommand):
    help = (
        "Create demo users, the simulated models, the suites and a finished demo run. "
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
        with transaction.atomic():
            self._users(password)
            models = self._models()
            suites = install_all_suites()
        self._demo_run(suites, models, options["repetitions"])
        self._demo_scenarios(models, options["scenario_repetitions"])
        if apps.is_installed("annotation"):
            # By name, not by import: the pipeline never imports the review app.
            call_command("seed_review_demo", stdout=self.stdout)
        if apps.is_installed("jury"):
            call_command("seed_jury_demo", stdout=self.stdout)
        self.stdout.write(
            f"Demo users: {', '.join(u for u, _ in DEMO_USERS)} "
            f"(password: {password if not options['password'] else 'as given'})"
        )

    def _users(self, password: str) -> None:
        groups = {name: Group.objects.get_or_create(name=name)[0] for name in ALL_ROLES}
        for username, roles in DEMO_USERS:
            user, _ = User.objects.get_or_create(username=username)
            user.set_password(password)
            user.is_staff = user.is_superuser = username == "admin"
            user.save()
            user.groups.set([groups[r] for r in roles])

    def _models(self) -> list[ModelConfig]:
        return [
            ModelConfig.objects.get_or_create(
                name=name,
                defaults={"provider": ModelConfig.Provider.SIMULATED, "model_id": name},
            )[0]
            for name in SIMULATED_MODELS
        ]

    def _demo_run(self, suites: list[Suite], models, repetitions: int) -> None:
        suite = next(s for s in suites if s.name == "office-19")
        if Run.objects.filter(label=DEMO_RUN_LABEL).exists():
            self.stdout.write("Demo run already present.")
            return
        run = launch_run(
            suite=suite,
            models=models,
            repetitions=repetitions,
            temperatures=[1.0],
            label=DEMO_RUN_LABEL,
            enqueue=False,
        )
        execute_inline(run)
        run.refresh_from_db()
        self.stdout.write(f"Demo run {run.pk}: {run.traces.count()} traces, {run.status}.")

    def _demo_scenarios(self, models, repetitions: int) -> None:
        """A 60-case set and a finished multi-turn run, so clinicians have conversations."""
        from patientagentbench.suites.case_sets import create_case_set

        suite = Suite.objects.filter(name=DEMO_CASE_SET).first() or create_case_set(
            DEMO_CASE_SET, DEMO_CASE_COUNT, DEMO_CASE_SEED
        )
        if Run.objects.filter(label=DEMO_SCENARIO_LABEL).exists():
            self.stdout.write("Demo scenario run already present.")
            return
        run = launch_run(
            suite=suite,
            models=models,
            repetitions=repetitions,
            temperatures=[1.0],
            max_turns=10,
            label=DEMO_SCENARIO_LABEL,
            enqueue=False,
        )
        execute_inline(run)
        run.refresh_from_db()
        self.stdout.write(
            f"Demo case set {suite.name} ({suite.tasks.count()} cases); scenario run {run.pk}: "
            f"{run.traces.count()} conversations, {run.status}."
        )
