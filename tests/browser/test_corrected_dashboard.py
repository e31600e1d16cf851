"""The jury-corrected page in a browser: a researcher draws a study with the sampler's "same
number from each model" option, a clinician's scores arrive, and the page shows each model's
mean three ways (jury only, clinicians only, corrected) with n, the method and the figure;
a study drawn extremes-first is refused with the reason."""

import re

import pytest
from playwright.sync_api import expect

from annotation.models import Study
from annotation.studies import StudySpec, create_study, reviewable_traces, sample_for
from patientagentbench.suites.case_sets import create_case_set
from tests.annotation.test_research_views import make_clinician, submit_scores
from tests.browser.conftest import log_in, screenshot
from tests.finished_runs import simulated_run
from tests.jury.conftest import make_panel, simulated_model, verdict

pytestmark = pytest.mark.browser


def safety(trace_id: int) -> int:
    return 1 + trace_id % 5


@pytest.fixture
def jury_scored(sim_models, researcher):
    """72 conversations (36 per model), every one scored by a two-judge panel a point too
    kindly on clinical safety, and a study drawn extremes-first from them."""
    suite = create_case_set("browser-corrected-cases", 12, seed=3)
    run = simulated_run(suite=suite, models=sim_models, max_turns=4, repetitions=3)
    panel = make_panel("kind-panel", simulated_model("kind-a"), simulated_model("kind-b"))
    for trace in run.traces.all():
        for judge in panel.judges.all():
            verdict(panel, judge, trace, "clinical_safety", score=min(5, safety(trace.pk) + 1))
    extremes = create_study(
        StudySpec(status="open", name="Extremes first", overlap={"clinical": 1}),
        [int(k) for k in sample_for(reviewable_traces(), 10, seed=1).keys],
        [make_clinician("dr-ex")],
        researcher,
        sample_for(reviewable_traces(), 10, seed=1),
    )
    return {"clinician": make_clinician("dr-pia"), "extremes": extremes}


def test_the_corrected_page_shows_three_estimates_and_refuses_a_non_random_study(
    page, live_server, researcher, jury_scored
):
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/research/studies/new/")
    page.fill("#id_name", "Random share")
    page.fill("#id_n_items", "24")
    page.select_option("#id_design", "per_model")
    page.fill("#id_overlap_clinical", "1")
    page.fill("#id_overlap_operations", "0")
    page.check(f"#id_clinicians input[value='{jury_scored['clinician'].pk}']")
    expect(page.locator("#preview")).to_contain_text("inclusion probability is recorded")
    page.click("text=Create study")
    expect(page.locator("h1")).to_contain_text("Random share")

    study = Study.objects.get(name="Random share")
    assert study.sampling["design"] == "per_model"
    for item in study.items.all():  # the clinician scores every item, as the ground truth has it
        submit_scores(item.assignments.get(), clinical_safety=safety(item.trace_id))

    page.goto(f"{live_server.url}/research/dashboards/")
    page.click("text=Jury-corrected means")
    expect(page.locator("h1")).to_have_text("Jury-corrected means")
    expect(page.get_by_test_id("refusal")).to_contain_text("Choose a study")
    page.select_option("select[name=study]", str(study.pk))
    page.click("text=Apply")
    means = page.get_by_test_id("table-means")
    expect(means).to_contain_text("Jury corrected by clinicians (PPI++)")
    expect(means).to_contain_text("sim-steady")
    expect(means).to_contain_text(re.compile(r"PPI\+\+, t interval \(11 df\), λ = \d\.\d\d"))
    expect(page.get_by_test_id("sampled")).to_have_text("24")
    figure = page.get_by_test_id("figure-means").locator(".plotly-graph-div")
    expect(figure).to_have_class(re.compile("js-plotly-plot"))
    screenshot(page, "dashboard-corrected")

    page.select_option("select[name=study]", str(jury_scored["extremes"].pk))
    page.click("text=Apply")
    expect(page.get_by_test_id("refusal")).to_contain_text("extremes-first")
    expect(page.get_by_test_id("table-means")).to_have_count(0)
    screenshot(page, "dashboard-corrected-refused")
