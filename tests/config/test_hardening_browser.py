"""The site under its Content-Security-Policy in Chromium: pages with figures, live sections,
forms and the error and lockout pages run their JavaScript with no policy violation and no
script error.

Playwright's sync API runs one event loop per thread, and tests/browser keeps its Chromium
open for the whole session in the main thread; so these tests drive a Chromium of their own
from a thread of their own (the test data is made beforehand in the test's thread)."""

import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import pytest
from django.conf import settings
from playwright.sync_api import expect, sync_playwright

from patientagentbench.runs.launch import execute_inline, launch_run
from tests.browser.conftest import log_in, screenshot
from tests.browser.test_dashboards import watched  # noqa: F401  (a fixture)
from tests.services import IN_CI

pytestmark = pytest.mark.browser

WATCH_POLICY = """
window.__policyViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__policyViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


@pytest.fixture
def chromium():
    executable = shutil.which("chromium")
    if executable is None:
        message = "Debian's chromium is not installed (apt install chromium)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return executable


@contextmanager
def watched_page(executable: str):
    """A page whose console errors, uncaught exceptions and CSP violations are collected."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable,
            args=["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"],
        )
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.set_default_timeout(20_000)
        page.add_init_script(WATCH_POLICY)
        problems: list[str] = []
        # A page answered 404 or 429 on purpose is logged as a failed resource; nothing else.
        page.on(
            "console",
            lambda message: (
                message.type == "error"
                and not message.text.startswith("Failed to load resource")
                and problems.append(f"console: {message.text}")
            ),
        )
        page.on("pageerror", lambda error: problems.append(f"uncaught: {error}"))
        try:
            yield page, problems
        finally:
            browser.close()


def in_its_own_thread(work) -> None:
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(work).result()


def no_violations(page, problems):
    violations = page.evaluate("window.__policyViolations")
    assert violations == [] and problems == [], (violations, problems)


def test_pages_work_under_the_content_security_policy(
    chromium,
    live_server,
    researcher,
    watched,  # noqa: F811
    office_suite,
    sim_models,
):
    run = launch_run(suite=office_suite, models=sim_models, repetitions=3, enqueue=False)
    execute_inline(run)

    def drive():
        with watched_page(chromium) as (page, problems):
            response = page.goto(f"{live_server.url}/accounts/login/")
            assert "script-src 'self'" in response.headers["content-security-policy"]
            log_in(page, live_server, researcher.username)
            expect(page.locator("header nav")).to_contain_text("Runs")
            no_violations(page, problems)

            # The live dashboard: figures drawn from their JSON islands, then an htmx poll.
            page.goto(f"{live_server.url}/research/dashboards/jury/")
            scatter = page.get_by_test_id("figure-scatter").locator(".plotly-graph-div")
            expect(scatter).to_have_class(re.compile("js-plotly-plot"))
            expect(page.locator(".plotly-graph-div:not(.js-plotly-plot)")).to_have_count(0)
            page.wait_for_timeout(6_000)  # one 5 s poll
            no_violations(page, problems)

            # A run's analysis report: every figure drawn.
            page.goto(f"{live_server.url}/runs/{run.pk}/report/")
            expect(page.locator(".js-plotly-plot").first).to_be_visible()
            expect(page.locator(".plotly-graph-div:not(.js-plotly-plot)")).to_have_count(0)
            assert page.locator(".js-plotly-plot").count() >= 5
            screenshot(page, "csp-report")
            no_violations(page, problems)

            # An invitation's link selects itself on focus (it was an inline onfocus handler).
            page.goto(f"{live_server.url}/research/people/")
            page.fill("#id_email", "dr.new@example.org")
            page.fill("#id_name", "Dr New")
            page.select_option("#id_track", "clinical")
            page.click("text=Send invitation")
            link = page.get_by_label("Set-password link")
            link.focus()
            selected = link.evaluate("el => [el.selectionStart, el.selectionEnd, el.value.length]")
            assert selected[0] == 0 and selected[1] == selected[2] > 0
            no_violations(page, problems)

            # The error pages, inside the layout.
            assert page.goto(f"{live_server.url}/no-such-page/").status == 404
            expect(page.get_by_test_id("error-404")).to_contain_text("Page not found")
            no_violations(page, problems)

    in_its_own_thread(drive)


def test_the_lockout_page_under_the_policy(chromium, live_server, researcher):
    def drive():
        with watched_page(chromium) as (page, problems):
            page.goto(f"{live_server.url}/accounts/login/")
            for n in range(settings.AXES_FAILURE_LIMIT):
                page.fill("#id_username", researcher.username)
                page.fill("#id_password", f"wrong-{n}")
                page.click("button[type=submit]")
                page.wait_for_load_state()
            expect(page.get_by_test_id("lockout")).to_contain_text("Too many failed log-ins")
            expect(page.locator("#id_username")).to_have_value(researcher.username)
            screenshot(page, "login-lockout")
            no_violations(page, problems)

    in_its_own_thread(drive)
