"""What admins and researchers click: launch a run, watch it finish, read a trace."""

import pytest
from playwright.sync_api import expect

from patientagentbench.models import ModelConfig, Run
from tests.browser.conftest import log_in, screenshot

pytestmark = pytest.mark.browser


def test_admin_launches_a_run_and_watches_it_complete(
    page, live_server, celery_worker_thread, admin_user, office_suite, sim_models
):
    log_in(page, live_server, admin_user.username)
    page.goto(f"{live_server.url}/runs/new/")
    page.check("text=sim-steady")
    page.fill("#id_repetitions", "2")
    page.select_option(
        "#id_tasks",
        [
            str(t.pk)
            for t in office_suite.tasks.filter(
                task_id__in=["retrieve-001", "schedule-001", "compute-001"]
            )
        ],
    )
    expect(page.get_by_test_id("job-count")).to_have_text("6")  # 3 tasks × 1 model × 2 runs
    screenshot(page, "launch-form")
    page.click("text=Launch run")

    expect(page.get_by_test_id("run-status")).to_have_text("Finished", timeout=60_000)
    expect(page.get_by_test_id("done-count")).to_have_text("6")
    screenshot(page, "run-detail-finished")
    run = Run.objects.get()
    assert run.status == Run.Status.FINISHED

    page.locator("a.dot").first.click()
    expect(page.locator("h1")).to_contain_text("sim-steady")
    expect(page.locator(".toolcard").first).to_be_visible()
    screenshot(page, "trace")


def test_admin_adds_a_model_and_sees_key_status(page, live_server, admin_user, db):
    log_in(page, live_server, admin_user.username)
    page.goto(f"{live_server.url}/models/new/")
    page.fill("#id_name", "local-vllm")
    page.select_option("#id_provider", "openai_compatible")
    page.fill("#id_model_id", "qwen2.5-7b")
    page.fill("#id_base_url", "http://127.0.0.1:8001/v1")
    page.fill("#id_api_key_env", "PAB_BROWSER_TEST_KEY")
    page.click("text=Save")
    expect(page.locator("td", has_text="PAB_BROWSER_TEST_KEY not set")).to_be_visible()
    screenshot(page, "models")
    assert ModelConfig.objects.filter(name="local-vllm").exists()


def test_researcher_reads_runs_but_cannot_launch(
    page, live_server, researcher, office_suite, sim_models
):
    from patientagentbench.runs.launch import execute_inline, launch_run

    run = launch_run(
        suite=office_suite,
        models=sim_models[:1],
        tasks=list(office_suite.tasks.all()[:2]),
        enqueue=False,
    )
    execute_inline(run)
    log_in(page, live_server, researcher.username)
    expect(page.locator("h1")).to_have_text("Runs")
    expect(page.locator("nav >> text=Launch")).to_have_count(0)
    page.click(f"text=Run {run.pk}")
    expect(page.get_by_test_id("run-status")).to_have_text("Finished")
    screenshot(page, "researcher-run")
    response = page.goto(f"{live_server.url}/runs/new/")
    assert response.status == 403


def test_clinician_sees_only_their_review_page(
    page, live_server, clinician, office_suite, sim_models
):
    log_in(page, live_server, clinician.username)
    expect(page.locator("h1")).to_have_text("Your reviews")
    content = page.content()
    assert "sim-steady" not in content and "Runs" not in content
    screenshot(page, "clinician-home")
    assert page.goto(f"{live_server.url}/runs/").status == 403


def test_researcher_reads_the_analysis_report(
    page, live_server, researcher, office_suite, sim_models
):
    from patientagentbench.runs.launch import execute_inline, launch_run

    run = launch_run(suite=office_suite, models=sim_models, repetitions=3, enqueue=False)
    execute_inline(run)
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    page.click("text=Analysis")
    expect(page.locator("h1")).to_contain_text("Analysis")
    expect(page.locator(".js-plotly-plot").first).to_be_visible()
    expect(page.locator(".js-plotly-plot")).to_have_count(7)
    expect(page.locator("text=Published (paper)").first).to_be_visible()
    expect(page.locator("text=Where runs first diverge")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280  # no sideways scroll
    screenshot(page, "analysis-report")
    with page.expect_download() as download:
        page.click("text=CSV >> nth=0")
    assert download.value.suggested_filename.endswith(".csv")


def test_researcher_browses_case_sets_and_a_case_across_models(
    page, live_server, researcher, sim_models
):
    from patientagentbench.runs.launch import execute_inline, launch_run
    from patientagentbench.suites.case_sets import create_case_set

    suite = create_case_set("browser-cases", 24, seed=3)
    run = launch_run(
        suite=suite,
        models=sim_models,
        repetitions=2,
        max_turns=10,
        tasks=list(suite.tasks.order_by("task_id")[:3]),
        enqueue=False,
    )
    execute_inline(run)
    log_in(page, live_server, researcher.username)
    page.click("nav >> text=Case sets")
    page.click("text=browser-cases")
    expect(page.locator("h1")).to_contain_text("browser-cases")
    screenshot(page, "case-set")
    page.locator("table a").first.click()
    expect(page.locator("text=Hidden story")).to_be_visible()
    expect(page.locator("text=sim-jittery").first).to_be_visible()
    screenshot(page, "case-detail")
    page.locator("a", has_text="rep 0").first.click()
    expect(page.locator(".turn.user").first).to_be_visible()
    screenshot(page, "scenario-trace")
