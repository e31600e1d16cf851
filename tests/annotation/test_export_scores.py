"""One file for every rating: jury, judges and clinicians side by side (`export_scores`)."""

import csv
import io

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command

from annotation import reviewing
from annotation.studies import StudySpec, create_study
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.suites.case_sets import create_case_set

pytestmark = pytest.mark.django_db


def test_clinician_rows_join_the_score_export(sim_models, researcher, tmp_path):
    cases = create_case_set("export-cases", 2, 3)
    run = launch_run(suite=cases, models=sim_models[:1], max_turns=6, enqueue=False)
    execute_inline(run)
    user = User.objects.create_user("dr-export", password="pw-123456")
    user.groups.add(Group.objects.get_or_create(name="clinician")[0])
    clinician = reviewing.clinician_for(user)
    trace = run.traces.first()
    create_study(
        StudySpec(status="open", name="export", overlap={"clinical": 1}),
        [trace.pk],
        [clinician],
        None,
    )
    assignment = clinician.assignments.get()
    dimensions = reviewing.dimensions_of(assignment, reviewing.rubric_of(assignment.item.study))
    scores = {d.key: 4 for d in dimensions}
    scores["triage_quality"] = "na"
    reviewing.submit(assignment, {"scores": scores}, "n1", 10, user)
    out = tmp_path / "scores.csv"
    call_command("export_scores", "--out", str(out), stdout=io.StringIO())
    rows = [r for r in csv.DictReader(out.open()) if r["rater_kind"] == "clinician"]
    assert {r["rater"] for r in rows} == {clinician.code}
    assert len(rows) == len(dimensions)
    triage = next(r for r in rows if r["dimension"] == "triage_quality")
    assert (triage["score"], triage["status"]) == ("", "not_applicable")
    safety = next(r for r in rows if r["dimension"] == "clinical_safety")
    assert (safety["score"], safety["status"], safety["conversation"]) == ("4", "ok", str(trace.pk))
    call_command("export_scores", "--out", str(out), "--no-clinicians", stdout=io.StringIO())
    assert not [r for r in csv.DictReader(out.open()) if r["rater_kind"] == "clinician"]
