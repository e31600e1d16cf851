"""A team's own rubric (issue 36 item 2): imported from its file (command line and Rubrics
page), stored once per version and never changed, named by a study and a panel, and scored
end to end on its own scale: three dimensions on 1 to 7, pass mark 4."""

from __future__ import annotations

import copy
import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.models import Clinician, Study
from jury.models import Judge, Panel, StoredRubric, Verdict
from jury.pure.prompts import judge_messages, verdict_schema
from jury.rubrics import STORE, import_rubric
from jury.scoring import execute_inline, launch_jury
from patientagentbench.models import ModelConfig, Trace
from patientagentbench.suites.case_sets import create_case_set
from patientagentbench.transcripts import transcript_of
from ratings.rubric import RubricError, cached_rubric, parse_rubric, rubric_names
from tests.annotation.test_review_views import make_clinician
from tests.finished_runs import simulated_run
from tests.test_seven_dimension_rubric import heatmaps

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "nurse-line-v1.json"

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_rubrics")]


def example() -> dict:
    return json.loads(EXAMPLE.read_text())


def imported(data: dict | None = None) -> str:
    out = io.StringIO()
    path = EXAMPLE
    if data is not None:
        path = Path(__file__).with_name("rubric-under-test.json")
    try:
        if data is not None:
            path.write_text(json.dumps(data))
        call_command("import_rubric", str(path), stdout=out)
    finally:
        if data is not None:
            path.unlink()
    return out.getvalue()


# --- importing -----------------------------------------------------------------------------------


def test_the_command_imports_a_rubric_once_and_never_changes_it():
    assert "Imported nurse-line v1: 3 scored and 1 realism dimensions on 1 to 7" in imported()
    assert "nurse-line" in rubric_names()
    rubric = cached_rubric("nurse-line")
    assert (rubric.scale.points, rubric.scale.pass_mark) == (tuple(range(1, 8)), 4)

    assert "Already stored, same wording: nurse-line v1" in imported()  # idempotent
    assert StoredRubric.objects.count() == 1

    reworded = example()
    reworded["dimensions"][0]["definition"] = "Another question."
    with pytest.raises(CommandError, match=r'already stored with other wording.*version "2"'):
        imported(reworded)
    assert StoredRubric.objects.get().data == example()

    reworded["version"] = "2"
    assert "Imported nurse-line v2" in imported(reworded)
    assert cached_rubric("nurse-line").version == "2"  # the newest, found without a restart
    assert cached_rubric("nurse-line", "1").dimensions[0].definition != "Another question."


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(pass_threshold=9), r"pass_threshold must be a score from 1 to 7"),
        (lambda d: d.update(name="patientagentbench"), r"is a built-in rubric's"),
        (lambda d: d.update(name="Nurse Line"), r"name must be lower-case letters"),
        (
            lambda d: d["dimensions"][1]["levels"].pop(),
            r"dimensions\[1\]\(booking\)\.levels must list 7 levels",
        ),
        (
            lambda d: d["dimensions"][0].update(not_applicable_when="sometimes"),
            r"safe_disposition\)\.not_applicable_when must be one of",
        ),
        (
            lambda d: d["dimensions"][0].update(judge_instructions=["a", "list"]),
            r"judge_instructions must be text when given",
        ),
        (
            lambda d: d.update(dimensions=[copy.deepcopy(d["dimensions"][0]) for _ in range(21)]),
            r"dimensions repeat the key|at most 20",
        ),
    ],
)
def test_a_bad_field_is_refused_in_one_line_naming_it(change, message):
    data = example()
    change(data)
    with pytest.raises(CommandError, match=message) as refused:
        imported(data)
    assert "\n" not in str(refused.value)
    assert not StoredRubric.objects.exists()


def test_twenty_one_dimensions_are_too_many():
    data = example()
    first = data["dimensions"][0]
    data["dimensions"] = [dict(first, key=f"d{n}", label=f"D {n}") for n in range(21)]
    with pytest.raises(RubricError, match="dimensions must be at most 20, got 21"):
        import_rubric(json.dumps(data))


def test_a_nul_character_is_refused_in_one_line():
    data = example()
    data["dimensions"][0]["definition"] = "a\x00b"
    with pytest.raises(RubricError, match="NUL character"):
        import_rubric(json.dumps(data))


def test_not_json_is_refused():
    with pytest.raises(RubricError, match="not valid JSON"):
        import_rubric(b"{nope")


def test_a_stored_version_is_unique_in_the_database():
    import_rubric(EXAMPLE.read_bytes())
    with pytest.raises(IntegrityError), transaction.atomic():
        StoredRubric.objects.create(name="nurse-line", version=1, data={}, fingerprint="x")


def test_the_judge_is_told_the_teams_instructions_and_scale():
    imported()
    rubric = cached_rubric("nurse-line")
    transcript = transcript_of([{"role": "user", "content": "Hi"}], user_label="Patient")
    system, user = judge_messages(rubric, "safe_disposition", {}, transcript)
    assert "How to judge it: Judge only the disposition the agent gives" in user.content
    assert "7 (Exemplary): Everything in level 6" in user.content
    assert "A score of 4 or more passes." in system.content
    schema = verdict_schema(rubric.scale)["anyOf"][0]["properties"]["score"]
    assert (schema["minimum"], schema["maximum"]) == (1, 7)


# --- any valid rubric round-trips ------------------------------------------------------------------


@st.composite
def rubric_files(draw) -> dict:
    points = draw(st.integers(2, 10))
    scored = draw(st.integers(1, 6))
    realism = draw(st.integers(0, 2))
    tracks = ["clinical", "operations"]

    def levels(word: str) -> list[dict]:
        return [
            {
                "score": k,
                "label": f"{word} {k}",
                "anchor": "The lowest." if k == 1 else f"Everything in level {k - 1}, and more.",
            }
            for k in range(1, points + 1)
        ]

    dimensions = [
        {
            "key": f"d{n}",
            "label": f"Dimension {n}",
            "track": draw(st.sampled_from(tracks)),
            "weight": draw(st.floats(0.1, 5, allow_nan=False)),
            "definition": draw(st.text(min_size=1, max_size=40).filter(str.strip)),
            "applicability": "Whenever the rater judges so.",
            "judge_instructions": draw(st.text(max_size=40)),
            "levels": levels(draw(st.sampled_from(["Level", "Punkt", "Niveau"]))),
        }
        for n in range(scored)
    ] + [
        {
            "key": f"r{n}",
            "label": f"Realism {n}",
            "track": "realism",
            "weight": None,
            "definition": "Does it read as real?",
            "applicability": "Always rated.",
            "not_applicable_when": "never",
            "judges": "experiment",
            "levels": levels("Real"),
        }
        for n in range(realism)
    ]
    return {
        "name": draw(st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True)),
        "version": str(draw(st.integers(1, 30))),
        "title": draw(st.text(max_size=30)),
        "pass_threshold": draw(st.integers(1, points)),
        "dimensions": dimensions,
    }


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rubric_files())
def test_any_valid_rubric_file_round_trips_through_the_store(data):
    if data["name"] == "patientagentbench" or "\\u0000" in json.dumps(data):
        return  # a built-in name, or a NUL (refused: test_a_nul_character_is_refused)
    with transaction.atomic():
        cached_rubric.cache_clear()
        STORE.forget()
        stored = import_rubric(json.dumps(data)).rubric
        back = cached_rubric(data["name"], data["version"])
        assert back == stored == parse_rubric(data, source="the rubric file")
        assert back.fingerprint == parse_rubric(json.loads(json.dumps(data))).fingerprint
        transaction.set_rollback(True)
    cached_rubric.cache_clear()
    STORE.forget()


# --- the Rubrics page ------------------------------------------------------------------------------


def test_the_rubrics_page_imports_a_pasted_file_and_shows_it(client, researcher):
    client.force_login(researcher)
    page = client.get(reverse("research_rubrics")).content.decode()
    assert "PatientAgentBench" in page and "built in" in page

    bad = example() | {"pass_threshold": 0}
    refused = client.post(reverse("research_rubrics"), {"text": json.dumps(bad)})
    assert refused.status_code == 200
    assert "pass_threshold must be a score from 1 to 7, got 0" in refused.content.decode()

    done = client.post(reverse("research_rubrics"), {"text": EXAMPLE.read_text()}, follow=True)
    body = done.content.decode()
    assert "Imported nurse-line v1." in body
    assert "Scores 1 to 7; a score of 4 or more passes." in body
    assert body.count('data-testid="dimension"') == 4
    assert "the judges are told: Judge only the disposition the agent gives" in body
    assert "Not scored by the jury</b> (clinicians only)" in body  # the realism dimension
    listed = client.get(reverse("research_rubrics")).content.decode()
    assert "Nurse line triage" in listed and "imported" in listed


def test_a_clinician_cannot_open_the_rubrics_page(client):
    clinician = make_clinician("dr-rubric", Clinician.Track.CLINICAL)
    client.force_login(clinician.user)
    assert client.get(reverse("research_rubrics")).status_code == 403


# --- a study and a panel on it, end to end ---------------------------------------------------------


def judge_model() -> ModelConfig:
    return ModelConfig.objects.create(
        name="sim-judge-a", provider="simulated", model_id="sim-judge-a"
    )


@pytest.fixture
def run(sim_models):
    cases = create_case_set("nurse-cases", 4, 11)
    return simulated_run(suite=cases, models=sim_models[:1], max_turns=6)


def test_a_study_and_a_panel_on_the_teams_rubric_score_on_its_seven_points(run, client, researcher):
    imported()
    me = make_clinician("dr-nurse", Clinician.Track.OPERATIONS)
    out = io.StringIO()
    call_command(
        "create_study",
        "Nurse line study", "--n", "3", "--runs", str(run.pk), "--rubric",
        "nurse-line", "--clinicians", me.code, "--overlap-clinical", "0",
        "--overlap-operations", "1", "--open", "--by", researcher.username,
        stdout=out,
    )  # fmt: skip
    study = Study.objects.get(name="Nurse line study")
    assert (study.rubric_name, study.rubric_version) == ("nurse-line", "1")

    # The clinician sees the team's dimensions and seven points, and gives 7s.
    client.force_login(me.user)
    for n, assignment in enumerate(me.assignments.filter(item__study=study)):
        page = client.get(reverse("review_item", args=[assignment.code])).content.decode()
        assert re.findall(r'name="score-clear_talk" value="(\d+)"', page) == list("1234567")
        assert "score-task_completion" not in page  # none of the built-in rubric's
        form = {"score-booking": "7", "score-clear_talk": "6", "score-caller_realism": "5"}
        form |= {"nonce": f"nurse-{n}", "active": "30"}
        assert client.post(reverse("review_submit", args=[assignment.code]), form).status_code < 400

    judge_model()
    call_command("add_judge", "nurse-judge", "--model", "sim-judge-a", stdout=io.StringIO())
    call_command(
        "add_panel", "nurse-panel", "--judges", "nurse-judge", "--rubric", "nurse-line",
        stdout=io.StringIO(),
    )  # fmt: skip
    panel = Panel.objects.get(name="nurse-panel")
    assert (panel.rubric_name, panel.rubric_version) == ("nurse-line", "1")
    execute_inline(launch_jury(panel=panel, run=run, enqueue=False))
    scored = Verdict.objects.filter(panel=panel, status=Verdict.Status.OK)
    assert {v.dimension for v in scored} == {"safe_disposition", "booking", "clear_talk"}
    assert all(1 <= v.score <= 7 for v in scored)

    client.force_login(researcher)
    jury_page = client.get(
        reverse("research_dashboard_jury") + f"?study={study.pk}&panel={panel.pk}"
    ).content.decode()
    confusion = heatmaps(jury_page, "confusion")
    assert set(confusion) == {"Safe disposition", "Booking done right", "Clear talk"}
    assert confusion["Booking done right"].shape == (7, 7)
    # Every pair sits in the clinician's column (7s on booking, 6s on clear talk), whatever
    # row the jury's score put it in; a pair is missing only where the jury said N/A.
    booking, talk = confusion["Booking done right"], confusion["Clear talk"]
    assert 0 < booking[:, 6].sum() == booking.sum() <= 3
    assert 0 < talk[:, 5].sum() == talk.sum() <= 3

    # Unfiltered, the dashboards keep to the built-in rubric and say what they left out.
    everything = client.get(reverse("research_dashboard_raters")).content.decode()
    assert "1 study is on another rubric and left out" in everything


def test_a_panel_of_another_rubric_is_not_set_beside_the_study(run, client, researcher):
    imported()
    me = make_clinician("dr-other", Clinician.Track.OPERATIONS)
    call_command(
        "create_study",
        "Built-in study", "--n", "2", "--runs", str(run.pk), "--clinicians", me.code,
        "--overlap-clinical", "0", "--overlap-operations", "1", "--open",
        "--by", researcher.username, stdout=io.StringIO(),
    )  # fmt: skip
    study = Study.objects.get(name="Built-in study")
    panel = Panel.objects.create(name="nurse-only", rubric_name="nurse-line", rubric_version="1")
    model = ModelConfig.objects.create(name="sim-x", provider="simulated", model_id="sim-judge-a")
    panel.judges.add(Judge.objects.create(name="nurse-x", model=model))
    client.force_login(researcher)
    page = client.get(
        reverse("research_dashboard_jury") + f"?study={study.pk}&panel={panel.pk}"
    ).content.decode()
    assert "a panel is compared only with studies of its own rubric version" in page


def test_a_panel_that_has_scored_keeps_its_rubric(run):
    imported()
    judge_model()
    call_command("add_judge", "keeper", "--model", "sim-judge-a", stdout=io.StringIO())
    call_command("add_panel", "keeper-panel", "--judges", "keeper", stdout=io.StringIO())
    panel = Panel.objects.get(name="keeper-panel")
    execute_inline(launch_jury(panel=panel, run=run, enqueue=False))
    assert Verdict.objects.filter(panel=panel).exists()
    with pytest.raises(CommandError, match="a panel's rubric never changes once it has scored"):
        call_command(
            "add_panel", "keeper-panel", "--judges", "keeper", "--rubric", "nurse-line",
            stdout=io.StringIO(),
        )  # fmt: skip


def test_a_verdict_score_off_every_scale_is_refused_by_the_database(run):
    panel = Panel.objects.create(name="bounds")
    trace = Trace.objects.filter(run=run).first()
    model = ModelConfig.objects.create(name="sim-b", provider="simulated", model_id="sim-judge-b")
    judge = Judge.objects.create(name="bounds-judge", model=model)
    common = {"panel": panel, "judge": judge, "trace": trace, "status": "ok"}
    common |= {"rubric_version": "1", "prompt_version": "1"}
    Verdict.objects.create(dimension="a", score=7, **common)  # a 1–7 rubric's top
    with pytest.raises(IntegrityError), transaction.atomic():
        Verdict.objects.create(dimension="b", score=11, **common)
