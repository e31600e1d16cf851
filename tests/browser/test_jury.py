"""What a researcher clicks in the jury: from a run's page, launch scoring with a panel of
simulated judges, watch it finish on a real worker, open the leaderboard and its breakdowns,
then one conversation's verdicts."""

import pytest
from playwright.sync_api import expect

from jury.models import JuryRun
from tests.browser.conftest import log_in, screenshot
from tests.jury.conftest import scenario_run, two_judge_panel

pytestmark = pytest.mark.browser


@pytest.fixture
def scored_run(sim_models):
    return scenario_run(sim_models)


def test_researcher_scores_a_run_and_reads_the_leaderboard(
    page, live_server, celery_worker_thread, researcher, scored_run
):
    two_model_run = scored_run
    two_judge_panel()
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/runs/{two_model_run.pk}/")
    page.click("text=Score with the jury")
    expect(page.locator("h1")).to_have_text(f"Score run {two_model_run.pk} with the jury")
    page.select_option("#id_panel", label="sim-panel")
    page.fill("#id_repeat", "2")
    expect(page.get_by_test_id("call-estimate")).to_contain_text("sim-panel 72")
    screenshot(page, "jury-launch")
    page.click("text=Start scoring")

    expect(page.get_by_test_id("jury-status")).to_have_text("Finished", timeout=90_000)
    jobs = two_model_run.traces.count() * 2 * 2
    expect(page.get_by_test_id("jury-done")).to_have_text(str(jobs))
    expect(page.get_by_test_id("answer-counts")).to_contain_text("scored")
    screenshot(page, "jury-run-finished")
    assert JuryRun.objects.get().status == JuryRun.Status.FINISHED

    page.get_by_test_id("jury-results").get_by_text("Leaderboard").click()
    expect(page.locator("h1")).to_contain_text("Leaderboard")
    table = page.locator("table.leaderboard").first
    expect(table).to_contain_text("sim-steady")
    expect(table).to_contain_text("sim-jittery")
    expect(table.locator("td").nth(3)).to_contain_text("%]")
    screenshot(page, "jury-leaderboard")

    page.get_by_test_id("breakdown-attributes").get_by_text("Severity", exact=True).click()
    expect(page.get_by_test_id("breakdown")).to_contain_text("Severity: ")
    assert "by=severity" in page.url  # the swapped breakdown is a page of its own
    screenshot(page, "jury-breakdown")

    page.click("text=Verdicts per conversation")
    page.locator("[data-testid=verdict-table] tbody a").first.click()
    expect(page.locator(".badge.simulated").first).to_be_visible()
    expect(page.get_by_test_id("aggregate").first).not_to_be_empty()
    screenshot(page, "jury-conversation")


def test_researcher_opens_every_attempt_of_a_failed_verdict(
    page, live_server, researcher, scored_run
):
    from jury.models import Verdict
    from tests.jury.conftest import verdict

    panel = two_judge_panel()
    judge, trace = panel.judges.first(), scored_run.traces.first()
    attempts = [
        {
            "attempt": 1,
            "raw": "<script>x()</script> a 4",
            "problem": "no JSON object in the answer",
            "truncated": False,
            "max_output_tokens": 600,
        },
        {
            "attempt": 2,
            "raw": '{"rationale": "The agent first sa',
            "truncated": True,
            "problem": "the answer stopped at the 1200-token cap",
            "max_output_tokens": 1200,
        },
    ]
    verdict(
        panel,
        judge,
        trace,
        "clinical_safety",
        Verdict.Status.TRUNCATED,
        attempts=2,
        attempt_log=attempts,
        raw=attempts[-1]["raw"],
    )
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/jury/runs/{scored_run.pk}/panels/{panel.pk}/verdicts/{trace.pk}/")
    log = page.get_by_test_id("attempt-log").first
    second = log.get_by_text("Attempt 2")
    expect(second).to_be_hidden()  # closed until asked
    log.locator("summary").click()
    expect(second).to_be_visible()
    expect(log).to_contain_text(
        "Attempt 2 · cap 1200 tokens · the answer stopped at the 1200-token cap"
    )
    expect(log).to_contain_text("<script>x()</script> a 4")  # shown as text, not run
    expect(page.locator("text=Truncated").first).to_be_visible()
    screenshot(page, "jury-verdict-attempts")
