"""The pipeline's demo data: demo users, the simulated models, the suites and two finished runs
(office-19, and a generated case set played with simulated patients). Idempotent; the project's
one seeder (`seed_demo`, in config/) calls this first, then the review and jury demos."""

from __future__ import annotations

from django.contrib.auth.models import Group, User
from django.db import transaction
from django.template.defaultfilters import pluralize

from patientagentbench.models import ModelConfig, Run, Suite
from patientagentbench.roles import ADJUDICATOR, ADMIN, ALL_ROLES, CLINICIAN, RESEARCHER
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.suites.case_sets import create_case_set
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
    ("adjudicator", [ADJUDICATOR]),  # decides disputes, blinded (annotation.blind)
]
# sim-careless fails the way real agents do (simulated/careless.py), so the demo's
# correctness figures and transcripts show failures as well as good agents.
SIMULATED_MODELS = ["sim-steady", "sim-jittery", "sim-careless"]


def seed_pipeline_demo(
    password: str, repetitions: int, scenario_repetitions: int, say=lambda line: None
) -> list[str]:
    """Lines saying what was created or found; `say` hears each step as it starts, since the
    two runs take minutes."""
    with transaction.atomic():
        seed_users(password)
        models = simulated_models()
        suites = install_all_suites()
    say(
        f"{len(DEMO_USERS)} demo users, {len(models)} simulated models, {len(suites)} suite{pluralize(len(suites))}."
    )
    say(f"Playing the demo run: office-19 × {len(models)} models × {repetitions} repetitions…")
    played = [demo_run(suites, models, repetitions)]
    say(played[-1])
    say(
        f"Playing the demo scenario run: {DEMO_CASE_COUNT} cases × {len(models)} models × "
        f"{scenario_repetitions} repetitions…"
    )
    played.append(demo_scenarios(models, scenario_repetitions))
    say(played[-1])
    return played


def seed_users(password: str) -> None:
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in ALL_ROLES}
    for username, roles in DEMO_USERS:
        user, _ = User.objects.get_or_create(username=username)
        user.set_password(password)
        user.is_staff = user.is_superuser = username == "admin"
        user.save()
        user.groups.set([groups[r] for r in roles])


def simulated_models() -> list[ModelConfig]:
    return [
        ModelConfig.objects.get_or_create(
            name=name,
            defaults={"provider": ModelConfig.Provider.SIMULATED, "model_id": name},
        )[0]
        for name in SIMULATED_MODELS
    ]


def demo_run(suites: list[Suite], models, repetitions: int) -> str:
    suite = next(s for s in suites if s.name == "office-19")
    if Run.objects.filter(label=DEMO_RUN_LABEL).exists():
        return "Demo run already present."
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
    return f"Demo run {run.pk}: {run.traces.count()} traces, {run.status}."


def demo_scenarios(models, repetitions: int) -> str:
    """A 60-case set and a finished multi-turn run, so clinicians have conversations."""
    suite = Suite.objects.filter(name=DEMO_CASE_SET).first() or create_case_set(
        DEMO_CASE_SET, DEMO_CASE_COUNT, DEMO_CASE_SEED
    )
    if Run.objects.filter(label=DEMO_SCENARIO_LABEL).exists():
        return "Demo scenario run already present."
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
    return (
        f"Demo case set {suite.name} ({suite.tasks.count()} cases); scenario run {run.pk}: "
        f"{run.traces.count()} conversations, {run.status}."
    )
