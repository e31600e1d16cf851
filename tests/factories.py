"""Database rows the test packages share: people with roles, simulated models, one
clinician's review of a finished run, workers' heartbeats, and rows built once for a module
or class of tests (`rows_for_scope`). The hand-built patient is plain data, in
tests/patient_record.py."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.db import transaction
from django.utils import timezone

from annotation import reviewing
from annotation.models import Assignment, Clinician, Study
from annotation.studies import StudySpec, create_study
from jury.models import JudgeJob
from patientagentbench.models import (
    CaseSetJob,
    ImportJob,
    ModelConfig,
    Run,
    Trace,
    WorkerHeartbeat,
)
from patientagentbench.roles import CLINICIAN
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.suites.case_sets import create_case_set
from ratings.rubric import load_rubric


def simulated_models():
    """The two simulated agents the `sim_models` fixture makes (tests/conftest.py), for rows
    built outside a test."""
    return [
        ModelConfig.objects.create(name=name, provider="simulated", model_id=name)
        for name in ("sim-steady", "sim-jittery")
    ]


def person(username: str, *roles: str, password: str | None = None) -> User:
    """A user in the groups `roles` (patientagentbench.roles)."""
    user = User.objects.create_user(username=username, password=password)
    for role in roles:
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


@dataclass
class OneReview:
    """A one-conversation study of a finished simulated run, one clinician assigned to it."""

    run: Run
    trace: Trace
    user: User
    clinician: Clinician
    study: Study
    assignment: Assignment
    dimensions: tuple

    def submit(self, scores: dict) -> None:
        reviewing.submit(self.assignment, {"scores": scores}, "n1", 10, self.user)


def one_review(model: ModelConfig, cases: str, count: int = 2, **study: Any) -> OneReview:
    """Run `count` generated cases on one model, and open a study of the first conversation
    for a new clinician (study options: StudySpec's, e.g. status="open")."""
    run = launch_run(
        suite=create_case_set(cases, count, 3), models=[model], max_turns=6, enqueue=False
    )
    execute_inline(run)
    user = person(f"dr-{cases}", CLINICIAN)
    clinician = reviewing.clinician_for(user)
    trace = run.traces.order_by("pk").first()
    made = create_study(
        StudySpec(name=cases, overlap={"clinical": 1}, **study), [trace.pk], [clinician], None
    )
    assignment = clinician.assignments.get()
    dimensions = reviewing.dimensions_of(assignment, reviewing.rubric_of(made))
    return OneReview(run, trace, user, clinician, made, assignment, dimensions)


def heard(worker_id: str, seconds_ago: float = 0) -> str:
    """Worker `worker_id` last beat `seconds_ago`. A worker claims jobs while it beats, so the
    jobs it holds were claimed no later than that: a silent worker's claims are as old."""
    seen = timezone.now() - timedelta(seconds=seconds_ago)
    WorkerHeartbeat.objects.update_or_create(
        hostname=worker_id, defaults={"seen_at": seen, "reaped_at": None}
    )
    for model in (Trace, JudgeJob, CaseSetJob, ImportJob):
        model.objects.filter(worker=worker_id, started_at__gt=seen).update(started_at=seen)
    return worker_id


def silent(worker_id: str) -> str:
    """Worker `worker_id` stopped beating long enough to count as lost."""
    return heard(worker_id, settings.WORKER_DEAD_AFTER_S + 5)


@contextmanager
def rows_for_scope(django_db_blocker) -> Iterator[None]:
    """Database rows for a module- or class-scoped fixture: made inside a transaction that is
    rolled back when the scope ends, so they are built once for its tests instead of once a
    test. Each test runs in a savepoint inside it (pytest-django's usual per-test rollback),
    so a test's own changes are gone before the next test reads the rows. Only for tests that
    all share the rows: a test of the scope that must not see them belongs elsewhere."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield
        transaction.set_rollback(True)


@pytest.fixture(scope="module")
def rubric():
    """The shipped rubric as `load_rubric` reads it, once a module (the ratings and jury tests
    take it through their conftest.py)."""
    return load_rubric()
