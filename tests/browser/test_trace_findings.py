"""The trace page's researcher cards, as a browser shows them: the end reason in words, the
conversation faults, the warnings, and the LLM patient's rejected answers collapsed until
opened."""

import pytest
from playwright.sync_api import expect

from patientagentbench.models import Trace
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.suites.case_sets import create_case_set
from tests.browser.conftest import log_in, screenshot

pytestmark = pytest.mark.browser
SAID = "My chest has hurt since Monday and it goes down my left arm."


def test_the_trace_page_shows_faults_warnings_and_collapsed_rejected_answers(
    page, live_server, researcher, sim_models
):
    suite = create_case_set("browser-trace-cases", 1, seed=4)
    run = launch_run(suite=suite, models=sim_models[:1], max_turns=4, enqueue=False)
    execute_inline(run)
    trace = run.traces.get()
    Trace.objects.filter(pk=trace.pk).update(
        end_reason="max_iterations",
        messages=[
            {"role": "system", "content": "clinic assistant"},
            {"role": "user", "content": SAID},
            {"role": "assistant", "content": SAID},
        ],
        warnings=[
            {
                "kind": "timeout_retry",
                "model": "sim-steady",
                "attempt": 1,
                "detail": "a call to sim-steady timed out after 60 s and was retried (attempt 2)",
            }
        ],
        patient_rejected_attempts=[
            {
                "turn": 1,
                "attempt": 0,
                "text": "I can ask your PCP about that for you.",
                "thinking": "",
                "rejected": "sounded like the assistant",
            }
        ],
    )
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/traces/{trace.pk}/")
    expect(page.locator(".stats")).to_contain_text("hit the tool-call limit in one turn")
    expect(page.get_by_test_id("faults")).to_contain_text("agent_echo")
    expect(page.get_by_test_id("warnings")).to_contain_text("timed out after 60 s")
    rejected = page.get_by_test_id("patient-rejected")
    answer = rejected.get_by_text("I can ask your PCP about that for you.")
    expect(answer).to_be_hidden()  # collapsed: a researcher opens it
    rejected.locator("summary").first.click()
    expect(answer).to_be_visible()
    expect(rejected).to_contain_text("Patient message 2, attempt 1: sounded like the assistant")
    screenshot(page, "trace-findings")
    page.get_by_test_id("faults").get_by_role("link").click()
    expect(page).to_have_url(f"{live_server.url}/traces/{trace.pk}/?turns=1#turn-2")
