"""`/review/next/` under many studies: a fixed number of reads whatever the clinician's queue
holds, nothing written (so on SQLite it never waits for, or holds, the one write lock), and
the calibration lock decided as the review page decides it."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotation.models import Qualification, Study
from annotation.studies import StudySpec, create_study
from patientagentbench.models import Trace
from patientagentbench.suites.case_sets import create_case_set
from tests.annotation.test_review_views import make_clinician, mine, url
from tests.finished_runs import simulated_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def traces(sim_models):
    cases = create_case_set("queue-cases", 3, 11)
    run = simulated_run(suite=cases, models=sim_models[:1], max_turns=4)
    return list(run.traces.filter(status=Trace.Status.DONE).order_by("pk"))


@pytest.fixture
def me():
    return make_clinician("dr-queue")


@pytest.fixture
def logged_in(client, me):
    client.force_login(me.user)
    return client


def open_study(name: str, traces, me, researcher, *, calibrated: bool = False) -> Study:
    return create_study(
        StudySpec(
            status="open", name=name, overlap={"clinical": 1}, require_calibration=calibrated
        ),
        [t.pk for t in traces],
        [me],
        researcher,
    )


def locked_studies(n: int, traces, me, researcher) -> list[Study]:
    """Studies needing a calibration the clinician has not passed, queued before any other."""
    return [open_study(f"Locked {k}", traces, me, researcher, calibrated=True) for k in range(n)]


def queries_of_next(client) -> list[str]:
    client.get(reverse("review_next"))  # the session and the rubric cache warmed
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("review_next"))
    assert response.status_code == 302
    return [q["sql"] for q in queries]


def test_next_reads_a_fixed_number_of_rows_however_many_studies_are_locked(
    logged_in, traces, me, researcher
):
    locked_studies(1, traces, me, researcher)
    first = open_study("Free", traces[:1], me, researcher)
    few = queries_of_next(logged_in)

    # The first free study closes; the next free one is queued after six more locked ones.
    locked_studies(6, traces, me, researcher)
    later = open_study("Free, longer", traces, me, researcher)
    Study.objects.filter(pk=first.pk).update(status=Study.Status.CLOSED)
    many = queries_of_next(logged_in)

    assert logged_in.get(reverse("review_next"))["Location"] == url(
        "review_item", mine(me, later)[0].code
    )
    assert len(many) == len(few), (len(few), len(many))


def test_next_writes_nothing(logged_in, traces, me, researcher):
    locked_studies(2, traces, me, researcher)
    open_study("Free", traces, me, researcher)
    for sql in queries_of_next(logged_in):
        assert sql.lstrip().upper().startswith("SELECT"), sql


def qualify(clinician, study: Study, *, reopened: bool = False) -> None:
    Qualification.objects.create(
        clinician=clinician,
        round=create_study(
            StudySpec(
                status="closed", name="Round", kind=Study.Kind.CALIBRATION, overlap={"clinical": 1}
            ),
            [study.items.first().trace_id],
            [clinician],
            None,
        ),
        rubric_name=study.rubric_name,
        rubric_version=study.rubric_version,
        track="clinical",
        passed=True,
        reopened_at=timezone.now() if reopened else None,
    )


def test_a_passed_round_for_the_studys_rubric_opens_it_and_a_reopened_one_does_not(
    logged_in, traces, me, researcher
):
    calibrated = locked_studies(1, traces, me, researcher)[0]
    free = open_study("Free", traces, me, researcher)
    first_free = url("review_item", mine(me, free)[0].code)
    first_calibrated = url("review_item", mine(me, calibrated)[0].code)

    qualify(me, calibrated, reopened=True)
    assert logged_in.get(reverse("review_next"))["Location"] == first_free

    Qualification.objects.filter(clinician=me).update(rubric_version="0.0-other")
    qualify(me, calibrated)
    assert logged_in.get(reverse("review_next"))["Location"] == first_calibrated
    assert logged_in.get(first_calibrated).status_code == 200  # the page agrees: not locked
