"""What a researcher clicks in /research/: invite a clinician, set up a study with the live
sample preview, and decide a dispute in the adjudication queue; the invited clinician follows
the link and logs in."""

import re

import pytest
from django.core import mail
from playwright.sync_api import expect

from annotation.models import Clinician, Study
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.suites.case_sets import create_case_set
from tests.annotation.test_research_views import make_clinician, submit_scores
from tests.browser.conftest import log_in, screenshot

pytestmark = pytest.mark.browser


@pytest.fixture
def conversations(sim_models):
    suite = create_case_set("browser-review-cases", 6, seed=5)
    run = launch_run(suite=suite, models=sim_models, max_turns=6, enqueue=False)
    execute_inline(run)
    return run


def test_researcher_invites_creates_a_study_and_adjudicates(
    page, browser, live_server, researcher, conversations
):
    colleagues = [make_clinician("kai"), make_clinician("lee")]
    log_in(page, live_server, researcher.username)
    page.click("nav >> text=Review")
    expect(page.locator("h1")).to_have_text("Studies and calibration rounds")

    # Invite: the page shows the set-password link once.
    page.click("text=People")
    page.fill("#id_email", "dr.rivera@example.org")
    page.fill("#id_name", "Ana Rivera")
    page.select_option("#id_track", "clinical")
    page.fill("#id_specialty", "Family medicine")
    page.click("text=Send invitation")
    expect(page.get_by_test_id("invite-link")).to_contain_text("Invitation sent")
    link = page.get_by_label("Set-password link").input_value()
    assert "/accounts/reset/" in link and link in mail.outbox[-1].body
    expect(page.locator("td", has_text="Ana Rivera")).to_be_visible()
    screenshot(page, "research-people-invited")
    rivera = Clinician.objects.get(user__email="dr.rivera@example.org")

    # A study with the live preview: four sim-steady conversations, two clinicians each.
    page.click("text=Studies")
    page.click("text=New study")
    page.fill("#id_name", "Winter pilot")
    page.fill("#id_n_items", "4")
    page.check("#id_models input[value=sim-steady]")
    page.fill("#id_overlap_clinical", "2")
    page.fill("#id_overlap_operations", "0")
    for clinician in [*colleagues, rivera]:
        page.check(f"#id_clinicians input[value='{clinician.pk}']")
    expect(page.get_by_test_id("sample-total")).to_have_text("4")
    expect(page.get_by_test_id("preview-models")).to_contain_text("sim-steady")
    expect(page.locator("#preview")).to_contain_text("8 reviews over 3 clinicians")
    screenshot(page, "research-study-new")
    page.click("text=Create study")
    expect(page.locator("h1")).to_contain_text("Winter pilot")
    expect(page.get_by_test_id("progress-items").locator("tbody tr")).to_have_count(4)
    screenshot(page, "research-study")

    # Two clinicians disagree by 3 on clinical safety: the queue shows it, blinded.
    study = Study.objects.get(name="Winter pilot")
    shared = next(
        item
        for item in study.items.all()
        if item.assignments.filter(clinician__in=colleagues).count() == 2
    )
    for clinician, safety in zip(colleagues, (1, 4), strict=True):
        submit_scores(
            shared.assignments.get(clinician=clinician), default=3, clinical_safety=safety
        )
    page.reload()
    page.click("text=Adjudication (1 open)")
    expect(page.get_by_test_id("undecided")).to_contain_text("1 to decide")
    assert "sim-steady" not in page.content()
    dispute = page.get_by_test_id("dispute")
    expect(dispute).to_contain_text(colleagues[0].code)
    expect(dispute).to_contain_text(colleagues[1].code)
    screenshot(page, "research-adjudication")
    dispute.get_by_label("2", exact=True).check()
    dispute.locator("textarea").fill("Escalated, but only after the second question.")
    dispute.locator("text=Record decision").click()
    expect(page.get_by_test_id("dispute")).to_contain_text("decided: 2")
    screenshot(page, "research-adjudication-decided")

    # The conversation link shows what the clinicians saw.
    with page.expect_popup() as popup:
        page.click("text=read the conversation")
    conversation = popup.value
    expect(conversation.locator(".turn").first).to_be_visible()
    assert "sim-steady" not in conversation.content()
    screenshot(conversation, "research-item-conversation")

    # The invited clinician sets a password through the link and logs in.
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    newcomer = context.new_page()
    newcomer.goto(link)
    expect(newcomer.locator("h1")).to_have_text("Choose your password")
    screenshot(newcomer, "research-invite-set-password")
    newcomer.fill("#id_new_password1", "a-long-fresh-secret")
    newcomer.fill("#id_new_password2", "a-long-fresh-secret")
    newcomer.click("text=Set password")
    expect(newcomer.locator("h1")).to_have_text("Password set")
    newcomer.get_by_role("link", name="Log in").click()
    newcomer.fill("#id_username", "dr.rivera@example.org")
    newcomer.fill("#id_password", "a-long-fresh-secret")
    newcomer.click("button[type=submit]")
    expect(newcomer).to_have_url(re.compile(r"/review/"))
    context.close()


def test_researcher_builds_a_round_writes_references_and_reads_the_report(
    page, live_server, researcher, conversations
):
    from annotation import adjudication
    from annotation.reviewing import rubric_of

    close, far = make_clinician("close"), make_clinician("far")
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/research/rounds/new/")
    page.fill("#id_name", "Round 1")
    page.fill("#id_n_items", "3")
    page.fill("#id_min_alpha", "-1")
    for clinician in (close, far):
        page.check(f"#id_clinicians input[value='{clinician.pk}']")
    expect(page.get_by_test_id("sample-total")).to_have_text("3")
    screenshot(page, "research-round-new")
    page.click("text=Create round")
    expect(page.locator("h1")).to_contain_text("Reference scores")
    screenshot(page, "research-references")

    page.locator("a", has_text="Write").first.click()
    expect(page.locator("h1")).to_contain_text("Reference scores · item")
    page.locator("#id_score-clinical_safety").get_by_label("2", exact=True).check()
    page.fill("#id_why-clinical_safety", "Should have sent the patient to urgent care.")
    screenshot(page, "research-reference-item")
    page.click("text=Save and next")
    expect(page.locator(".messages")).to_contain_text("Saved the reference")
    page.click("text=← References")
    page.click("text=Open the round to clinicians")  # references still missing: refused
    expect(page.locator(".messages")).to_contain_text("It cannot open yet.")

    study = Study.objects.get(name="Round 1")
    for item in study.items.all():
        scored = {d.key: {"score": 3, "why": "fine"} for d in rubric_of(study).scored}
        adjudication.set_reference(item, scored, researcher)
    page.reload()
    page.click("text=Open the round to clinicians")
    expect(page.locator(".card.actions")).to_contain_text("The round is open")
    for item in study.items.all():
        submit_scores(item.assignments.get(clinician=close), default=3)
        submit_scores(item.assignments.get(clinician=far), default=5)
    page.goto(f"{live_server.url}/research/studies/{study.pk}/report/")
    expect(page.get_by_test_id("clinician-results")).to_contain_text(close.code)
    expect(page.get_by_test_id("clinician-results")).to_contain_text("all track dimensions")
    screenshot(page, "research-round-report")

    page.goto(f"{live_server.url}/research/studies/{study.pk}/")
    page.locator("a", has_text="audit trail").first.click()
    expect(page.get_by_test_id("events")).to_contain_text("submitted")
    screenshot(page, "research-item-audit")
