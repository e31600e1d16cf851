"""Trace and case pages at 1,280 px: nothing scrolls sideways, with every <details> closed or
open, on an office-19 trace, on scenario traces (one as the simulated agent left it, one
holding every kind of clinic side effect and an unbreakable 400-character token), and on the
case page. Screenshots go to test-artifacts/."""

import pytest
from playwright.sync_api import expect

from patientagentbench.models import Trace
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.suites.case_sets import create_case_set
from tests.browser.conftest import log_in, screenshot
from tests.patientagentbench.views.test_trace_and_case_pages import clinic_world_with_every_change

pytestmark = pytest.mark.browser

WIDTH = 1280
LONG_TOKEN = "https://example.org/" + "x" * 400


@pytest.fixture
def traces(office_suite, sim_models):
    office = launch_run(
        suite=office_suite,
        models=sim_models[:1],
        tasks=list(office_suite.tasks.filter(task_id__in=["retrieve-001", "schedule-001"])),
        enqueue=False,
    )
    execute_inline(office)
    cases = create_case_set("wide-pages", 6, seed=5)
    scenario = launch_run(suite=cases, models=sim_models[:1], max_turns=6, enqueue=False)
    execute_inline(scenario)
    busiest = max(scenario.traces.all(), key=lambda t: (len(t.side_effects), -t.pk))
    stressed = scenario.traces.exclude(pk=busiest.pk).first()
    world, *_ = clinic_world_with_every_change()
    effects = world.side_effects
    effects[4]["message"] = f"See {LONG_TOKEN} please. " * 3
    state = world.final_state()
    state["patient"]["name"] = LONG_TOKEN
    Trace.objects.filter(pk=stressed.pk).update(side_effects=effects, final_state=state)
    return {
        "office": office.traces.exclude(side_effects=[]).first() or office.traces.first(),
        "scenario": busiest,
        "every-effect": Trace.objects.get(pk=stressed.pk),
    }


def scroll_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def open_every_details(page) -> None:
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    expect(page.locator("details:not([open])")).to_have_count(0)


def test_trace_and_case_pages_never_scroll_sideways(page, live_server, researcher, traces):
    page.set_viewport_size({"width": WIDTH, "height": 900})
    log_in(page, live_server, researcher.username)
    for name, trace in traces.items():
        page.goto(f"{live_server.url}/traces/{trace.pk}/")
        expect(page.locator("h2#final-state")).to_be_visible()
        expect(page.get_by_test_id("final-state").locator("section").first).to_be_visible()
        if trace.side_effects:
            expect(page.get_by_test_id("side-effects").locator("article")).to_have_count(
                len(trace.side_effects)
            )
        assert scroll_width(page) <= WIDTH, name
        screenshot(page, f"trace-{name}")
        open_every_details(page)
        assert scroll_width(page) <= WIDTH, f"{name} with every <details> open"
        screenshot(page, f"trace-{name}-open")

    every = traces["every-effect"]
    page.goto(f"{live_server.url}/traces/{every.pk}/")
    cards = page.get_by_test_id("side-effects").locator("article")
    expect(cards).to_have_count(10)
    expect(cards.filter(has_text="Appointment booked")).to_have_count(1)
    expect(cards.filter(has_text="Message sent to the PCP")).to_contain_text(LONG_TOKEN[:40])
    raw = cards.first.locator("details.raw")
    expect(raw.locator("pre")).not_to_be_visible()
    raw.locator("summary").click()
    expect(raw.locator("pre")).to_contain_text('"kind": "appointment_scheduled"')

    task = traces["scenario"].task
    page.goto(f"{live_server.url}/traces/{traces['scenario'].pk}/")
    page.get_by_role("link", name=f"case {task.task_id}").click()
    expect(page.get_by_test_id("patient-chart")).to_contain_text("Medications")
    expect(page.get_by_test_id("attribute-chips")).to_contain_text("Care preference")
    expect(page.get_by_test_id("goal")).to_contain_text(task.case["goal"]["summary"])
    assert scroll_width(page) <= WIDTH, "case page"
    screenshot(page, "case-page")
    open_every_details(page)
    assert scroll_width(page) <= WIDTH, "case page with every <details> open"
    screenshot(page, "case-page-open")
