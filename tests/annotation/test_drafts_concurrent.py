"""Draft saves racing on PostgreSQL: each field ends with its newest version, none is lost.

SQLite serialises writers, so the race exists only on a database with row locks; without the
row lock in `save_draft` two saves of different fields read the same draft and the later write
drops the other's field."""

import threading

import pytest
from django.db import connection, connections

from annotation import reviewing
from annotation.models import Assignment
from tests.annotation.test_review_views import item, me, other, study, traces  # noqa: F401
from tests.services import require_services

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

FIELDS = ("clinical_safety", "triage_quality", "clinical_helpfulness")


def _race(assignment: Assignment, round_: int) -> None:
    saves = [
        (f"why-{key}", f"{key} {round_} v{v}", round_ * 10 + v) for key in FIELDS for v in (1, 2)
    ]
    start = threading.Barrier(len(saves))

    def save(field: str, text: str, version: int) -> None:
        try:
            start.wait()
            answer = {"why": {field.removeprefix("why-"): text}}
            reviewing.save_draft(assignment, answer, 0, None, versions={field: version})
        finally:
            connections.close_all()

    threads = [threading.Thread(target=save, args=s) for s in saves]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_simultaneous_saves_of_different_fields_all_survive(item):  # noqa: F811
    require_services()
    assert connection.vendor == "postgresql"
    for round_ in range(1, 11):
        _race(item, round_)
        item.refresh_from_db()
        assert item.draft["why"] == {key: f"{key} {round_} v2" for key in FIELDS}, round_
        assert item.draft_versions == {f"why-{key}": round_ * 10 + 2 for key in FIELDS}
