"""Issue 21: a judge earns trust as a clinician does. A scripted judge that is perfectly
consistent but reads the outcome checks backwards (`sim-judge-inverted`) must be flagged on the
judge page, fail a calibration round, and not be offered the envelope verdict."""

import pytest
from django.urls import reverse

from jury.scoring import execute_inline, launch_jury
from patientagentbench.models import Trace
from patientagentbench.suites.case_sets import create_case_set
from tests.finished_runs import simulated_run
from tests.jury.conftest import make_panel, simulated_model

pytestmark = pytest.mark.django_db


@pytest.fixture
def checked_run(sim_models):
    """Six cases × two agents: twelve conversations, half passing their outcome checks."""
    cases = create_case_set("trust-cases", 6, 4)
    run = simulated_run(suite=cases, models=sim_models, repetitions=1, max_turns=8)
    for i, trace in enumerate(run.traces.order_by("pk")):
        Trace.objects.filter(pk=trace.pk).update(correct=i % 2 == 0)
    return run


def scored_by(panel, run, repeat=2):
    jury_run = launch_jury(panel=panel, run=run, repeat=repeat, enqueue=False)
    execute_inline(jury_run)
    return jury_run


@pytest.fixture
def inverted_panel(db):
    return make_panel("inverted", simulated_model("sim-judge-inverted"))


def test_the_judge_page_warns_that_a_consistent_judge_inverts(
    client, researcher, checked_run, inverted_panel
):
    scored_by(inverted_panel, checked_run)
    client.force_login(researcher)
    body = client.get(reverse("jury_consistency", args=[inverted_panel.pk])).content.decode()
    assert 'data-testid="validity-warning"' in body
    assert "Consistency is not correctness" in body
    assert "Consistent (test–retest exact 100%) but inverted" in body
    assert "separates on 0 of 6 dimensions, inverts on 5" in body  # triage: too few checked


def test_an_honest_judge_gets_no_warning(client, researcher, checked_run):
    panel = make_panel("honest", simulated_model("sim-judge-a"))
    scored_by(panel, checked_run)
    client.force_login(researcher)
    body = client.get(reverse("jury_consistency", args=[panel.pk])).content.decode()
    assert 'data-testid="validity-warning"' not in body
    assert 'data-testid="validity"' in body and "separates" in body
