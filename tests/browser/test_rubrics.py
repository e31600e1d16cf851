"""A researcher brings the team's rubric: the Rubrics page refuses a bad file in one line,
imports the good one (chosen as a file), shows its seven points, and New study offers it."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("fresh_rubrics")]

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "nurse-line-v1.json"


def test_a_researcher_imports_a_rubric_and_a_new_study_offers_it(
    page, live_server, researcher, tmp_path
):
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/research/rubrics/")
    expect(page.get_by_test_id("rubrics")).to_contain_text("built in")

    bad = tmp_path / "bad.json"
    bad.write_text(EXAMPLE.read_text().replace('"pass_threshold": 4', '"pass_threshold": 8'))
    page.set_input_files("#id_file", str(bad))
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_test_id("rubric-error")).to_have_text(
        "the rubric file: pass_threshold must be a score from 1 to 7, got 8"
    )
    screenshot(page, "rubrics-refused")

    page.set_input_files("#id_file", str(EXAMPLE))
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_test_id("rubric-scale")).to_contain_text(
        "Scores 1 to 7; a score of 4 or more passes. 3 scored dimensions, 1 realism."
    )
    expect(page.get_by_test_id("dimension")).to_have_count(4)
    screenshot(page, "rubric-imported")

    page.goto(f"{live_server.url}/research/rubrics/")
    expect(page.get_by_test_id("rubrics")).to_contain_text("Nurse line triage")
    screenshot(page, "rubrics")
    page.goto(f"{live_server.url}/research/studies/new/")
    rubric = page.locator("#id_rubric")
    expect(rubric).to_contain_text("Nurse line triage v1 (3 scored dimensions, 1 to 7, pass ≥ 4)")


def test_a_clinician_scores_the_teams_seven_points_with_the_keyboard(
    page, live_server, researcher, sim_models
):
    from annotation.models import Submission
    from annotation.studies import StudySpec, create_study
    from jury.rubrics import import_rubric
    from patientagentbench.models import Trace
    from patientagentbench.runs.launch import execute_inline, launch_run
    from patientagentbench.suites.case_sets import create_case_set
    from tests.annotation.test_review_views import make_clinician, mine

    rubric = import_rubric(EXAMPLE.read_bytes()).rubric
    cases = create_case_set("browser-nurse-cases", 2, 5)
    run = launch_run(suite=cases, models=sim_models[:1], max_turns=6, enqueue=False)
    execute_inline(run)
    traces = list(run.traces.filter(status=Trace.Status.DONE).order_by("pk"))
    me = make_clinician("dr-seven-keys", "operations")
    study = create_study(
        StudySpec(
            status="open", name="Nurse line pilot", overlap={"operations": 1},
            rubric_name=rubric.name, rubric_version=rubric.version,
        ),
        [t.pk for t in traces[:2]],
        [me],
        researcher,
    )  # fmt: skip
    first = mine(me, study)[0]
    log_in(page, live_server, me.user.username)
    page.goto(f"{live_server.url}/review/{first.code}/")
    expect(page.locator(".dim.focused")).to_have_attribute("data-dim", "booking")
    points = page.locator("input[name=score-clear_talk]")
    values = points.evaluate_all("inputs => inputs.map(i => i.value)")
    assert [v for v in values if v.isdigit()] == list("1234567")
    page.keyboard.press("7")
    expect(page.locator(".dim.focused")).to_have_attribute("data-dim", "clear_talk")
    page.keyboard.press("6")
    expect(page.locator(".dim.focused")).to_have_attribute("data-dim", "caller_realism")
    page.keyboard.press("5")
    screenshot(page, "review-seven-points")
    page.keyboard.press("Enter")
    expect(page.locator(".review-bar")).to_contain_text("item 2 of 2")
    assert Submission.objects.get(assignment=first).scores == {
        "booking": 7,
        "clear_talk": 6,
        "caller_realism": 5,
    }
