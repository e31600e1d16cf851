"""The runs list with its filters and the launch form whose task list follows the suite."""

import pytest
from playwright.sync_api import expect

from patientagentbench.models import Run, Trace
from patientagentbench.runs.launch import execute_inline, launch_run
from tests.browser.conftest import log_in, screenshot

pytestmark = pytest.mark.browser


def _failed_responses(page) -> list[str]:
    failed: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    return failed


def _cancelled_run(suite, models) -> Run:
    run = launch_run(suite=suite, models=models[:1], repetitions=5, enqueue=False)
    pks = list(run.traces.order_by("pk").values_list("pk", flat=True))
    Trace.objects.filter(pk__in=pks[:38]).update(status=Trace.Status.DONE)
    Trace.objects.filter(pk__in=pks[38:]).update(status=Trace.Status.CANCELLED)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.CANCELLED)
    return run


def test_researcher_filters_the_runs_list(page, live_server, researcher, office_suite, sim_models):
    from patientagentbench.suites.case_sets import create_case_set

    finished = launch_run(
        suite=office_suite,
        models=sim_models,
        repetitions=2,
        tasks=list(office_suite.tasks.all()[:3]),
        enqueue=False,
    )
    execute_inline(finished)
    cancelled = _cancelled_run(office_suite, sim_models)
    cases = create_case_set("browser-list-cases", 4, seed=5)
    case_run = launch_run(suite=cases, models=sim_models[:1], max_turns=10, enqueue=False)
    execute_inline(case_run)

    failed = _failed_responses(page)
    log_in(page, live_server, researcher.username)
    expect(page.locator("h1")).to_have_text("Runs")
    rows = page.locator("table tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.first).to_contain_text(f"Run {case_run.pk}")  # newest first
    expect(page.get_by_test_id("run-count")).to_have_text("3 runs, newest first")
    cancelled_row = page.locator("tr", has_text=f"Run {cancelled.pk}")
    expect(cancelled_row.get_by_test_id("progress-text")).to_have_text(
        "38 of 95 finished · 57 cancelled"
    )
    expect(cancelled_row.locator(".progress .cancelled")).to_be_visible()
    screenshot(page, "runs-list")

    page.select_option("#id_suite", label="office-19")
    page.click("text=Filter")
    expect(rows).to_have_count(2)
    expect(page.get_by_test_id("run-count")).to_have_text("2 runs match, newest first")
    page.select_option("#id_status", "cancelled")
    page.click("text=Filter")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text(f"Run {cancelled.pk}")
    expect(page.locator("#id_suite")).to_have_value(str(office_suite.pk))
    expect(page.locator("#id_status")).to_have_value("cancelled")
    screenshot(page, "runs-list-filtered")

    page.click(f"text=Run {cancelled.pk}")
    expect(page.get_by_test_id("run-status")).to_have_text("Cancelled")
    expect(page.get_by_test_id("progress-text")).to_have_text("38 of 95 finished · 57 cancelled")
    screenshot(page, "run-detail-cancelled")

    page.click("nav >> text=Runs")
    expect(rows).to_have_count(3)
    assert failed == []  # no 404 for a favicon or anything else


def test_admin_picks_a_suite_and_the_task_list_follows(
    page, live_server, admin_user, office_suite, sim_models
):
    from patientagentbench.suites.case_sets import create_case_set

    cases = create_case_set("browser-launch-cases", 6, seed=3)
    goal = cases.tasks.order_by("task_id").first().case["goal"]["summary"]
    failed = _failed_responses(page)
    log_in(page, live_server, admin_user.username)
    page.goto(f"{live_server.url}/runs/new/")
    options = page.locator("#id_tasks option")
    # The form starts on office-19, though the case set sorts before it by name.
    expect(page.locator("#id_suite")).to_have_value(str(office_suite.pk))
    expect(options).to_have_count(19)
    expect(page.locator("#id_tasks")).to_contain_text("retrieve-001 — Find Alice's email address")
    expect(page.locator("#id_max_turns")).to_be_hidden()  # case sets only
    page.check("text=sim-steady")
    expect(page.get_by_test_id("job-count")).to_have_text("95")  # 19 tasks × 5 runs
    screenshot(page, "launch-office-19")

    page.select_option("#id_suite", label="browser-launch-cases")
    expect(options).to_have_count(6)
    expect(page.locator("#id_tasks")).to_contain_text(goal)
    expect(page.locator("#id_tasks")).not_to_contain_text("retrieve-001")
    expect(page.get_by_test_id("task-count")).to_have_text("6")
    expect(page.locator("#id_max_turns")).to_be_visible()
    expect(page.get_by_test_id("job-count")).to_have_text("30")  # 6 cases × 5 runs
    page.select_option("#id_tasks", index=[0, 1])
    expect(page.get_by_test_id("job-count")).to_have_text("10")
    screenshot(page, "launch-case-set")

    # A pasted value refreshes the preview (no key is pressed).
    page.locator("#id_repetitions").evaluate(
        "el => { el.value = '3'; el.dispatchEvent(new Event('paste', {bubbles: true})); }"
    )
    expect(page.get_by_test_id("job-count")).to_have_text("6")
    page.fill("#id_repetitions", "1e5")
    expect(page.get_by_test_id("preview-error")).to_have_text(
        "Runs (N) is a whole number from 1 to 100."
    )
    page.fill("#id_repetitions", "2")
    expect(page.get_by_test_id("job-count")).to_have_text("4")

    page.select_option("#id_suite", label="office-19")
    expect(options).to_have_count(19)
    expect(page.locator("#id_max_turns")).to_be_hidden()
    expect(page.get_by_test_id("job-count")).to_have_text("38")

    page.select_option("#id_suite", label="browser-launch-cases")
    expect(options).to_have_count(6)
    page.select_option("#id_tasks", index=[2])
    page.click("text=Launch run")
    expect(page.get_by_test_id("run-status")).to_be_visible()
    run = Run.objects.get()
    assert run.suite == cases and run.traces.count() == 2  # 1 case × 1 model × 2 runs
    assert failed == []
