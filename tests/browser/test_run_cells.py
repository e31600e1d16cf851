"""Run cells tell outcomes apart without colour: a conversation that ended without meeting its
criteria is hatched and says so, an error is round, a correct one is a plain square."""

import pytest
from playwright.sync_api import expect

from patientagentbench.models import ModelConfig, Trace
from patientagentbench.runs.launch import execute_inline, launch_run
from tests.browser.conftest import log_in, screenshot

pytestmark = pytest.mark.browser


@pytest.fixture
def mixed_run(office_suite, sim_models):
    careless = ModelConfig.objects.create(
        name="sim-careless", provider="simulated", model_id="sim-careless"
    )
    run = launch_run(
        suite=office_suite,
        models=[sim_models[0], careless],
        repetitions=2,
        tasks=list(office_suite.tasks.order_by("task_id")[:6]),
        enqueue=False,
    )
    execute_inline(run)
    assert run.traces.filter(status=Trace.Status.DONE, correct=False).exists()
    assert run.traces.filter(status=Trace.Status.DONE, correct=True).exists()
    return run


def style(locator, prop: str) -> str:
    return locator.evaluate(f"el => getComputedStyle(el).{prop}")


def test_failed_criteria_cells_differ_by_pattern_not_only_colour(
    page, live_server, researcher, mixed_run
):
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/runs/{mixed_run.pk}/")
    failed = page.locator("table a.dot.fail").first
    correct = page.locator("table a.dot.done:not(.fail)").first
    expect(failed).to_be_visible()
    expect(correct).to_be_visible()
    assert "repeating-linear-gradient" in style(failed, "backgroundImage")
    assert style(correct, "backgroundImage") == "none"
    assert "criteria not met" in failed.get_attribute("aria-label")
    assert "criteria not met" not in correct.get_attribute("aria-label")
    screenshot(page, "run-cells")
