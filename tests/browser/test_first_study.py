"""A newcomer's first study in the browser, by the guide: from logging in to a calibration
round open to its clinicians, with a design that can qualify them. The time it took is
printed (measured, not asserted)."""

import time

import pytest
from playwright.sync_api import expect

from annotation.models import Clinician, Study
from annotation.reviewing import rubric_of
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.suites.case_sets import create_case_set
from tests.browser.conftest import log_in, screenshot

pytestmark = pytest.mark.browser

ROUND_ITEMS = 6


@pytest.fixture
def conversations(sim_models):
    suite = create_case_set("first-study-cases", 6, seed=11)
    run = launch_run(suite=suite, models=sim_models, max_turns=6, enqueue=False)
    execute_inline(run)
    return run


def next_step(page):
    return page.locator("li.current")


def test_a_first_study_by_the_guide_from_login_to_an_open_round(
    page, live_server, researcher, conversations
):
    started = time.monotonic()
    log_in(page, live_server, researcher.username)
    page.click("nav >> text=Review")
    page.get_by_test_id("first-study-link").click()
    expect(page.locator("h1")).to_have_text("Your first study, step by step")
    expect(next_step(page)).to_contain_text("Clinicians")
    expect(next_step(page)).to_contain_text("at least 2 of them")
    screenshot(page, "first-study-guide-start")

    # Invite as many as the round needs, which the guide said up front.
    next_step(page).locator("a", has_text="Invite clinicians").click()
    for email, name in (("dr.ines@example.org", "Ines Okafor"), ("dr.tom@example.org", "Tom Berg")):
        page.fill("#id_email", email)
        page.fill("#id_name", name)
        page.select_option("#id_track", "clinical")
        page.click("text=Send invitation")
        expect(page.get_by_test_id("invite-link")).to_contain_text("Invitation sent")
    page.goto(f"{live_server.url}/research/start/")
    expect(next_step(page)).to_contain_text("A calibration round")

    next_step(page).locator("a", has_text="New calibration round").click()
    page.fill("#id_name", "First round")
    page.fill("#id_n_items", str(ROUND_ITEMS))
    for clinician in Clinician.objects.all():
        page.check(f"#id_clinicians input[value='{clinician.pk}']")
    expect(page.get_by_test_id("sample-total")).to_have_text(str(ROUND_ITEMS))
    page.click("text=Create round")
    expect(page.locator("h1")).to_contain_text("Reference scores")

    # References, item after item, from the guide's link.
    page.goto(f"{live_server.url}/research/start/")
    expect(next_step(page)).to_contain_text(f"{ROUND_ITEMS} of {ROUND_ITEMS} conversations lack")
    next_step(page).locator("a", has_text="Write references").click()
    study = Study.objects.get(name="First round")
    dimensions = [d.key for d in rubric_of(study).scored if d.track == "clinical"]
    page.locator("a", has_text="Write").first.click()
    for n in range(ROUND_ITEMS):
        expect(page.locator("h1")).to_contain_text("Reference scores · item")
        for dimension in dimensions:
            score = str(1 + (n + len(dimension)) % 5)  # references that vary
            page.locator(f"#id_score-{dimension}").get_by_label(score, exact=True).check()
            page.fill(f"#id_why-{dimension}", "What the anchors say for this conversation.")
        if n == 0:
            screenshot(page, "first-study-reference")
        page.click("text=Save and next")
        expect(page.locator(".messages")).to_contain_text("Saved the reference")

    page.goto(f"{live_server.url}/research/start/")
    expect(next_step(page)).to_contain_text("Open the round")
    expect(next_step(page)).to_contain_text("Its checklist holds")
    next_step(page).locator("a", has_text="Open it on its page").click()
    page.click("text=Open the round to clinicians")
    expect(page.locator(".messages")).to_contain_text("“First round” is now open.")
    elapsed = time.monotonic() - started
    print(f"\nfirst study by the guide: login to round open in {elapsed:.1f} s of clicking")
    page.goto(f"{live_server.url}/research/start/")
    expect(next_step(page)).to_contain_text("The study")
    screenshot(page, "first-study-guide-round-open")
    study.refresh_from_db()
    assert study.status == Study.Status.OPEN
