"""The reference-trace monitor in Chromium: one run's repetitions set as the reference on its
page, a second run's deviating traces appearing while it runs, and the failure risk ratio
computed on it once it ends."""

import re

import pytest
from playwright.sync_api import expect

from patientagentbench.models import ModelConfig, Trace
from patientagentbench.results.references import DEVIATING_SHOWN
from patientagentbench.runs.execution import execute_trace
from patientagentbench.runs.launch import launch_run
from tests.browser.conftest import ARTIFACTS, log_in, screenshot
from tests.finished_runs import simulated_run

pytestmark = pytest.mark.browser


@pytest.fixture
def three_models(sim_models):
    careless = ModelConfig.objects.create(
        name="sim-careless", provider="simulated", model_id="sim-careless"
    )
    return [*sim_models, careless]


def test_a_second_runs_deviating_traces_are_flagged_live(
    page, live_server, researcher, office_suite, three_models
):
    reference_run = simulated_run(suite=office_suite, models=three_models, repetitions=3)
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/runs/{reference_run.pk}/")
    monitor = page.get_by_test_id("monitor")
    expect(monitor).to_contain_text("No reference tool sequence")
    monitor.get_by_role("button", name="Set this run as the reference").click()
    expect(page.locator("body")).to_contain_text(
        f"Run {reference_run.pk} is the reference of {19 * 3} cells"
    )
    expect(page.get_by_test_id("monitor")).to_contain_text("the figures below are in-sample")

    # Six repetitions: the first three meet the reference run's seeds, the rest are new.
    later = launch_run(suite=office_suite, models=three_models, repetitions=6, enqueue=False)
    queued = list(later.traces.order_by("pk").values_list("pk", flat=True))
    page.goto(f"{live_server.url}/runs/{later.pk}/")
    expect(page.get_by_test_id("run-status")).to_have_text("Queued")
    expect(page.get_by_test_id("monitor")).to_contain_text("0 finished traces checked")

    half = len(queued) // 2
    for pk in queued[:half]:
        execute_trace(pk)
    # The page polls: without a reload, the deviating traces so far appear, marked live.
    expect(page.get_by_test_id("checked-count")).to_have_text(str(half), timeout=15_000)
    flagged = page.get_by_test_id("deviating-row")
    expect(flagged.first).to_be_visible()
    expect(page.get_by_text("live", exact=True)).to_be_visible()
    so_far = int(page.get_by_test_id("deviating-count").inner_text())
    assert flagged.count() == min(so_far, DEVIATING_SHOWN)
    screenshot(page, "reference-monitor-live")

    for pk in queued[half:]:
        execute_trace(pk)
    expect(page.get_by_test_id("run-status")).to_have_text("Finished", timeout=15_000)
    done = later.traces.filter(status=Trace.Status.DONE).count()
    expect(page.get_by_test_id("checked-count")).to_have_text(str(done))
    risk = page.get_by_test_id("risk-ratio").first
    expect(risk).to_have_text(re.compile(r"^\d+\.\d\d× 95% CI \d+\.\d\d–\d+\.\d\d$"))
    expect(page.get_by_test_id("early-share")).to_have_text(re.compile(r"^\d+% 95% CI \d+–\d+%$"))
    expect(page.get_by_test_id("monitor-validation")).to_contain_text("nearly three times")
    expect(page.get_by_text("Set this run as the reference")).to_be_visible()
    screenshot(page, "reference-monitor-finished")
    page.get_by_test_id("monitor").screenshot(path=str(ARTIFACTS / "reference-monitor-card.png"))
