"""A researcher meets a round's checklist before it opens; a clinician who misses the
calibration targets is told so, and what to do next."""

import pytest
from playwright.sync_api import expect

from annotation import lifecycle
from annotation.models import Study
from annotation.studies import StudySpec, create_study
from tests.annotation.test_review_views import make_clinician
from tests.browser.conftest import log_in, screenshot
from tests.browser.test_review import traces as traces  # noqa: F401 (fixture)

pytestmark = pytest.mark.browser


def a_round(traces, clinicians, researcher, **spec):
    return create_study(
        StudySpec(
            name="Calibration round 2",
            kind=Study.Kind.CALIBRATION,
            overlap={"clinical": 1},
            min_exact=0.5,
            min_adjacent=0.8,
            **spec,
        ),
        [t.pk for t in traces[:2]],
        clinicians,
        researcher,
    )


def test_a_round_cannot_open_with_a_missing_reference(page, live_server, traces, researcher):
    me = make_clinician("dr-waiting")
    round_ = a_round(traces, [me], researcher)
    first = round_.items.order_by("pk").first()
    first.reference = {"clinical_safety": {"score": 2, "why": "Missed the red flag."}}
    first.save(update_fields=["reference"])

    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/research/studies/{round_.pk}/references/")
    checklist = page.get_by_test_id("checklist")
    expect(checklist).to_contain_text("Draft")
    expect(checklist).to_contain_text("2 of 2 reference items lack a reference")
    screenshot(page, "round-draft-checklist")
    checklist.get_by_role("button", name="Open the round to clinicians").click()
    expect(page.locator(".messages")).to_contain_text("It cannot open yet.")
    expect(page.get_by_test_id("checklist")).to_be_visible()
    round_.refresh_from_db()
    assert round_.status == Study.Status.DRAFT

    page.context.clear_cookies()
    log_in(page, live_server, me.user.username)
    page.goto(f"{live_server.url}/review/")
    expect(page.locator("body")).to_contain_text("Nothing is assigned to you yet.")


def test_a_clinician_who_fails_sees_the_result_and_what_to_do_next(
    page, live_server, traces, researcher
):
    me = make_clinician("dr-misses")
    round_ = a_round(traces, [me], researcher, status=Study.Status.OPEN, on_fail=Study.OnFail.WAIT)
    for item in round_.items.all():
        item.reference = {
            "clinical_safety": {"score": 2, "why": "Missed the red flag."},
            "triage_quality": {"score": 4, "why": "Asked the right questions."},
            "clinical_helpfulness": {"score": 4, "why": "Answered what was asked."},
        }
        item.save(update_fields=["reference"])
    log_in(page, live_server, me.user.username)
    page.goto(f"{live_server.url}/review/")
    page.keyboard.press("Enter")
    for number in (1, 2):
        expect(page.locator(".review-bar")).to_contain_text(f"item {number} of 2")
        for key in "44444":
            page.keyboard.press(key)
        page.keyboard.press("Enter")
    outcome = page.get_by_test_id("round-outcome")
    expect(outcome).to_contain_text("You met the targets on 2 of 3 dimensions")
    expect(outcome).to_contain_text("clinical safety: reread the anchors")
    expect(outcome).to_contain_text("wait: the researcher will be in touch")
    expect(outcome).to_contain_text("waiting for the round to close")
    # Blinding: the clinician is compared with the reference only, never with the others.
    expect(page.locator(".feedback-page")).not_to_contain_text("alpha")

    page.goto(f"{live_server.url}/review/")
    expect(page.get_by_test_id("round-result")).to_have_text("Waiting for the round to close")
    lifecycle.close_study(round_, researcher)
    page.reload()
    expect(page.get_by_test_id("round-result")).to_have_text("Not yet passed")
    page.get_by_role("link", name="See your result").click()
    expect(page.get_by_test_id("round-outcome")).to_contain_text("Result: not yet")
    screenshot(page, "round-result")
