"""A model name that is HTML reaches a figure as text: plotly.js, which draws <a href> links
and <span style> in labels, shows the name as typed and links nowhere."""

import pytest
from playwright.sync_api import expect

from patientagentbench.models import ModelConfig
from patientagentbench.runs.launch import execute_inline, launch_run
from tests.browser.conftest import log_in, screenshot

pytestmark = pytest.mark.browser

HOSTILE = '<a href="https://evil.example/">sim-steady</a>'


@pytest.fixture
def run_with_a_hostile_name(office_suite):
    hostile = ModelConfig.objects.create(name=HOSTILE, provider="simulated", model_id="sim-steady")
    run = launch_run(
        suite=office_suite,
        models=[hostile],
        repetitions=2,
        tasks=list(office_suite.tasks.order_by("task_id")[:4]),
        enqueue=False,
    )
    execute_inline(run)
    return run


def test_a_hostile_model_name_is_plain_text_in_every_figure(
    page, live_server, researcher, run_with_a_hostile_name
):
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/runs/{run_with_a_hostile_name.pk}/report/")
    figures = page.locator(".plotly-graph-div .main-svg")
    expect(figures.first).to_be_visible()
    # Every figure drawn before anything is read (plotly.js draws them one after another).
    expect(page.locator(".plotly-graph-div:not(:has(.main-svg))")).to_have_count(0)
    screenshot(page, "figure-hostile-label")
    assert page.locator(".plotly-graph-div a[href*='evil.example']").count() == 0
    drawn = page.locator(".plotly-graph-div").all_text_contents()
    assert any(HOSTILE in text for text in drawn), drawn[:3]
