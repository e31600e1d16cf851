"""The live agreement dashboards in a browser: a researcher watches the jury page while a
clinician, in another browser context, submits a score; the page changes by itself within 10 s
(htmx polls the cached partial every 5 s); the alt-test shows beside the envelope. Then the
other dashboards, a breakdown chosen in the filter form, and the planner's Simulate button."""

import re

import pytest
from playwright.sync_api import expect

from annotation.studies import StudySpec, create_study
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.suites.case_sets import create_case_set
from tests.annotation.test_research_views import submit_scores
from tests.annotation.test_review_views import make_clinician, mine
from tests.browser.conftest import log_in, screenshot
from tests.jury.conftest import make_panel, simulated_model, verdict

pytestmark = pytest.mark.browser
SCORED = ("clinical_safety", "triage_quality", "clinical_helpfulness")


@pytest.fixture
def watched(sim_models, researcher):
    """Eight conversations scored by two of three clinical clinicians (the third, Eve, has
    work left), and a two-judge panel's verdicts on them."""
    suite = create_case_set("browser-dashboard-cases", 4, seed=8)
    run = launch_run(suite=suite, models=sim_models, max_turns=6, enqueue=False)
    execute_inline(run)
    people = [make_clinician(name) for name in ("dr-ash", "dr-bo", "dr-eve")]
    study = create_study(
        StudySpec(status="open", name="Live pilot", overlap={"clinical": 3}, seed=2),
        list(run.traces.order_by("pk").values_list("pk", flat=True)),
        people,
        researcher,
    )
    for n, person in enumerate(people[:2]):
        for i, assignment in enumerate(mine(person, study)):
            submit_scores(assignment, default=3 + (i + n) % 2, clinical_safety=2 + (i % 4))
    panel = make_panel("live-panel", simulated_model("live-a"), simulated_model("live-b"))
    for i, trace in enumerate(run.traces.order_by("pk")):
        for j, judge in enumerate(panel.judges.order_by("name")):
            for dimension in SCORED:
                verdict(panel, judge, trace, dimension, score=2 + (i + j) % 3)
    return {"study": study, "eve": people[2]}


def test_the_dashboard_changes_when_a_clinician_submits(
    page, browser, live_server, researcher, watched
):
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/research/")
    page.click("text=Dashboards")
    expect(page.locator("h1")).to_have_text("Jury vs clinicians")
    count = page.get_by_test_id("clinician-scores")
    expect(count).to_have_text("80")  # 8 conversations × 2 clinicians × 5 dimensions
    expect(page.get_by_test_id("table-envelope")).to_contain_text("Clinical safety")
    # Beside the envelope, the alt-test: a column of its table, and its own table below it
    # (8 conversations: fewer than the 30 items a clinician needs, and the page says so).
    expect(page.get_by_test_id("table-envelope")).to_contain_text("Alt-test: stands in? (ε 0.2)")
    alt_test = page.get_by_test_id("table-alt_test")
    expect(alt_test).to_contain_text("Can the jury stand in for a clinician? (alt-test)")
    expect(alt_test).to_contain_text("pass/fail (accuracy)")
    expect(alt_test).to_contain_text("clinicians have the 30 items the t-test needs")
    # This panel passed no calibration round: the alt-test's verdicts are withheld with the
    # envelope's, in the table and the headline.
    expect(alt_test).to_contain_text("withheld: not qualified")
    expect(page.get_by_test_id("envelope-headline")).to_contain_text("(the alt-test's too)")
    scatter = page.get_by_test_id("figure-scatter").locator(".plotly-graph-div")
    expect(scatter).to_have_class(re.compile("js-plotly-plot"))
    drawn = scatter.get_attribute("id")
    screenshot(page, "dashboard-jury")

    # Eve scores her first conversation in her own browser.
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    eve = context.new_page()
    log_in(eve, live_server, watched["eve"].user.username)
    first, second = mine(watched["eve"], watched["study"])[:2]
    eve.goto(f"{live_server.url}/review/{first.code}/")
    for key in "45344":
        eve.keyboard.press(key)
    expect(eve.locator("[data-progress]")).to_have_text("all answered")
    eve.keyboard.press("Enter")
    expect(eve).to_have_url(re.compile(re.escape(second.code)))
    context.close()

    # The researcher's page polls every 5 s: the new scores appear without a reload.
    expect(count).to_have_text("85", timeout=10_000)
    expect(page.get_by_test_id("freshness")).to_contain_text("3 clinicians")
    # A new rendering (new div ids, so htmx carries no old classes over): plotly drew it whole.
    expect(scatter).not_to_have_id(drawn)
    expect(scatter).to_have_class(re.compile("js-plotly-plot"))
    screenshot(page, "dashboard-jury-after-a-submission")

    # A breakdown by model, chosen in the filter form.
    page.select_option("select[name=breakdown]", "model")
    page.get_by_role("button", name="Apply").click()
    expect(page.get_by_test_id("table-breakdown")).to_contain_text("sim-steady")
    expect(page.get_by_test_id("table-breakdown")).to_contain_text("sim-jittery")
    screenshot(page, "dashboard-jury-by-model")


def test_the_other_dashboards_and_the_planner(page, live_server, researcher, watched):
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/research/dashboards/")
    page.click("nav.tabs >> text=Inter-rater")
    expect(page.get_by_test_id("table-alpha")).to_contain_text("Live pilot")
    expect(page.get_by_test_id("figure-matrix").locator(".main-svg").first).to_be_visible()
    screenshot(page, "dashboard-raters")

    page.click("nav.tabs >> text=Consistency and quality")
    expect(page.get_by_test_id("table-outcomes")).to_contain_text("Clinical safety")
    expect(page.get_by_test_id("table-by_model")).to_contain_text("sim-steady")
    screenshot(page, "dashboard-quality")

    page.click("nav.tabs >> text=Study planner")
    page.select_option("select[name=pilot]", str(watched["study"].pk))
    page.fill("input[name=items]", "4, 8, 16")
    page.fill("input[name=overlaps]", "2")
    page.get_by_role("button", name="Simulate").click()
    expect(page.get_by_test_id("recommended")).to_be_visible(timeout=20_000)
    expect(page.get_by_test_id("table-designs")).to_contain_text("16")
    expect(page).to_have_url(re.compile(r"pilot="))
    screenshot(page, "dashboard-planner")

    with page.expect_download() as download:
        page.get_by_test_id("table-designs").get_by_text("CSV").click()
    assert download.value.suggested_filename == "planner-designs.csv"
