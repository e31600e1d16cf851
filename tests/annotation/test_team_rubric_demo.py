"""The demo holds a team's own rubric in use (issue 36 item 5): a 7-point rubric imported, a
study on it scored by the three demo clinicians, and a simulated panel of the same rubric
whose verdicts the jury page sets beside theirs."""

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import reverse

import jury.demo
import patientagentbench.demo
from annotation.demo import TEAM_PANEL, TEAM_STUDY, seed_team_rubric_demo
from annotation.models import Assignment, Study, Submission
from jury.models import Panel, Verdict
from tests.test_seven_dimension_rubric import heatmaps

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_rubrics")]


def test_the_demo_scores_a_study_and_a_panel_on_the_teams_rubric(monkeypatch, client):
    monkeypatch.setattr(jury.demo, "REPEAT", 1)
    monkeypatch.setattr(patientagentbench.demo, "DEMO_CASE_COUNT", 15)
    out = io.StringIO()
    call_command("seed_demo", "--repetitions", "1", "--scenario-repetitions", "1", stdout=out)
    assert "Team-rubric demo: nurse-line v1 imported" in out.getvalue()

    study = Study.objects.get(name=TEAM_STUDY)
    assert (study.rubric_name, study.rubric_version) == ("nurse-line", "1")
    assignments = Assignment.objects.filter(item__study=study)
    assert assignments.count() == Submission.objects.filter(assignment__in=assignments).count()
    given = [
        s
        for sub in Submission.objects.filter(assignment__in=assignments)
        for s in sub.scores.values()
    ]
    scores = [s["score"] if isinstance(s, dict) else s for s in given]
    assert set(scores) - {None} <= set(range(1, 8)) and max(s for s in scores if s) > 5

    panel = Panel.objects.get(name=TEAM_PANEL)
    assert Verdict.objects.filter(panel=panel, status="ok").exists()
    client.force_login(User.objects.get(username="researcher"))
    page = client.get(
        reverse("research_dashboard_jury") + f"?study={study.pk}&panel={panel.pk}"
    ).content.decode()
    assert {counts.shape for counts in heatmaps(page, "confusion").values()} == {(7, 7)}

    assert seed_team_rubric_demo() == "Team-rubric demo already present."
