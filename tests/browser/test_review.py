"""What a clinician does in the review pages: score with the keyboard, come back to a draft,
double-click Submit, work through a calibration round with its feedback."""

import re

import pytest
from playwright.sync_api import expect

from annotation.models import Study, Submission
from annotation.studies import StudySpec, create_study
from patientagentbench.models import Trace
from tests.annotation.test_review_views import REFERENCE_WHY, make_clinician, mine
from tests.browser.conftest import log_in, screenshot

pytestmark = pytest.mark.browser


@pytest.fixture
def traces(sim_models):
    from patientagentbench.runs.launch import execute_inline, launch_run
    from patientagentbench.suites.case_sets import create_case_set

    cases = create_case_set("browser-review-cases", 4, 11)
    run = launch_run(suite=cases, models=sim_models[:1], max_turns=8, enqueue=False)
    execute_inline(run)
    return list(run.traces.filter(status=Trace.Status.DONE).order_by("pk"))


@pytest.fixture
def me(db):
    return make_clinician("dr-keys")


@pytest.fixture
def study(traces, me, researcher):
    return create_study(
        StudySpec(status="open", name="Winter pilot", overlap={"clinical": 1}),
        [t.pk for t in traces[:3]],
        [me],
        researcher,
    )


def focused(page):
    return page.locator(".dim.focused")


def item_url(live_server, code: str) -> str:
    return f"{live_server.url}/review/{code}/"


def test_keyboard_only_scoring_lands_on_the_next_item(page, live_server, me, study):
    first, second = mine(me, study)[:2]
    log_in(page, live_server, me.user.username)
    page.goto(f"{live_server.url}/review/")
    expect(page.locator("h1")).to_have_text("Your reviews")
    screenshot(page, "review-home")

    page.keyboard.press("Enter")  # the one primary Continue
    expect(page).to_have_url(item_url(live_server, first.code))
    expect(focused(page)).to_have_attribute("data-dim", "clinical_safety")
    page.keyboard.press("4")
    expect(focused(page)).to_have_attribute("data-dim", "triage_quality")
    page.keyboard.press("n")
    expect(focused(page)).to_have_attribute("data-dim", "clinical_helpfulness")
    page.keyboard.press("k")
    expect(focused(page)).to_have_attribute("data-dim", "triage_quality")
    page.keyboard.press("3")  # changes N/A to 3
    expect(focused(page)).to_have_attribute("data-dim", "clinical_helpfulness")
    page.keyboard.press("j")  # leave helpfulness for later
    expect(focused(page)).to_have_attribute("data-dim", "conversation_realism")
    page.keyboard.press("5")
    expect(focused(page)).to_have_attribute("data-dim", "patient_profile_realism")

    # A comment on the turn in view; digits typed into it score nothing.
    page.keyboard.press("c")
    comment = page.locator("#comment-list textarea").last
    expect(comment).to_be_focused()
    page.keyboard.type("2 questions at once")
    page.keyboard.press("Escape")
    expect(page.locator("input[name=score-patient_profile_realism]:checked")).to_have_count(0)
    page.keyboard.press("4")
    screenshot(page, "review-item")

    page.keyboard.press("Enter")  # helpfulness is missing: focus goes there, nothing is sent
    expect(focused(page)).to_have_attribute("data-dim", "clinical_helpfulness")
    expect(page.locator("[data-client-error]")).to_contain_text("Clinical helpfulness")
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    expect(page).to_have_url(item_url(live_server, second.code))
    expect(page.locator(".review-bar")).to_contain_text("item 2 of 3")

    submission = Submission.objects.get(assignment=first)
    assert submission.scores == {
        "clinical_safety": 4,
        "triage_quality": 3,
        "clinical_helpfulness": 2,
        "conversation_realism": 5,
        "patient_profile_realism": 4,
    }
    assert [c["text"] for c in submission.comments] == ["2 questions at once"]


def test_a_reload_mid_item_finds_the_draft(page, live_server, me, study):
    first = mine(me, study)[0]
    log_in(page, live_server, me.user.username)
    # The server out of reach for autosaves, from before the page loads: routed after it, a
    # save already on its way on a busy machine got through and the test saw "saved".
    page.route("**/draft/", lambda route: route.abort())
    page.goto(item_url(live_server, first.code))
    expect(focused(page)).to_be_visible()
    page.keyboard.press("2")
    expect(page.locator("#save-state")).to_have_text("not saved — retrying")
    page.unroute("**/draft/")
    expect(page.locator("#save-state")).to_have_text(re.compile(r"^saved"), timeout=15_000)
    page.locator(".dim.focused .why summary").click()
    page.fill("textarea[name=why-triage_quality]", "Never asked how high the fever was.")
    expect(page.locator("#save-state")).to_have_text(re.compile(r"^saved"))

    page.reload()
    expect(page.locator("input[name=score-clinical_safety][value='2']")).to_be_checked()
    expect(page.locator("textarea[name=why-triage_quality]")).to_have_value(
        "Never asked how high the fever was."
    )
    expect(page.locator("#save-state")).to_contain_text("saved")
    # The first row still missing an answer is where the keys start again.
    expect(focused(page)).to_have_attribute("data-dim", "triage_quality")


def test_a_double_click_on_submit_stores_once(page, live_server, me, study):
    first, second = mine(me, study)[:2]
    log_in(page, live_server, me.user.username)
    page.goto(item_url(live_server, first.code))
    for key in "34445":
        page.keyboard.press(key)
    expect(page.locator("[data-progress]")).to_have_text("all answered")
    page.locator("[data-action=submit]").dblclick()
    expect(page).to_have_url(item_url(live_server, second.code))
    assert Submission.objects.filter(assignment=first).count() == 1

    page.goto(item_url(live_server, first.code))
    expect(page.locator(".panel-head")).to_contain_text("Read-only")
    page.click("text=Revise…")
    page.keyboard.press("2")
    page.locator("[data-action=submit]").click()  # no reason yet: asked for one
    expect(page.locator("[data-client-error]")).to_contain_text("Say why")
    page.fill("textarea[name=reason]", "Reread the chart.")
    page.locator("[data-action=submit]").click()
    expect(page.locator(".panel-head")).to_contain_text("version 2")
    assert Submission.objects.filter(assignment=first).count() == 2


def test_a_calibration_round_with_immediate_feedback(page, live_server, me, traces, researcher):
    round_ = create_study(
        StudySpec(
            status="open",
            name="Calibration round 2",
            kind=Study.Kind.CALIBRATION,
            overlap={"clinical": 1},
            feedback=Study.Feedback.IMMEDIATE,
        ),
        [t.pk for t in traces[:2]],
        [me],
        researcher,
    )
    for item in round_.items.all():
        item.reference = {
            "clinical_safety": {"score": 2, "why": REFERENCE_WHY},
            "triage_quality": {"score": 4, "why": "Asked the right questions."},
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
        expect(page.locator("h1")).to_have_text("Your scores beside the reference")
        expect(page.locator("table.feedback")).to_contain_text(REFERENCE_WHY)
        expect(page.locator("table.feedback")).to_contain_text("off by 2")
        if number == 1:
            screenshot(page, "review-feedback")
        page.keyboard.press("Enter")  # next item, then the round's summary
    expect(page.locator("h1")).to_contain_text("you and the reference")
    expect(page.locator("table.agreement")).to_contain_text("Clinical safety")
    screenshot(page, "review-round")


def test_typing_then_reloading_within_100_ms_ten_times_keeps_every_character(
    page, live_server, me, study
):
    first = mine(me, study)[0]
    log_in(page, live_server, me.user.username)
    page.goto(item_url(live_server, first.code))
    box = page.locator("textarea[name=why-clinical_safety]")
    typed = ""
    for n in range(10):
        expect(focused(page)).to_be_visible()
        expect(box).to_have_value(typed)  # every character so far, right after the reload
        page.eval_on_selector(".dim[data-dim=clinical_safety] details.why", "d => d.open = true")
        box.focus()
        page.eval_on_selector(
            "textarea[name=why-clinical_safety]", "t => t.setSelectionRange(9999, 9999)"
        )
        chunk = f"{n}abc,"
        box.press_sequentially(chunk)
        typed += chunk
        page.wait_for_timeout(n * 10)  # 0 to 90 ms: long before the 800 ms autosave
        page.reload()
    expect(box).to_have_value(typed)
    page.keyboard.press("Escape")
    page.keyboard.press("3")  # a save of another field must not take the text with it
    expect(page.locator("#save-state")).to_have_text(re.compile(r"^saved"))
    first.refresh_from_db()
    assert first.draft["why"] == {"clinical_safety": typed}
    assert first.draft["scores"] == {"clinical_safety": 3}

    # The server has it all: a browser with nothing stored locally sees every character.
    fresh = page.context.browser.new_context()
    try:
        other = fresh.new_page()
        log_in(other, live_server, me.user.username)
        other.goto(item_url(live_server, first.code))
        expect(other.locator("textarea[name=why-clinical_safety]")).to_have_value(typed)
    finally:
        fresh.close()


def test_flags_take_a_key_and_the_key_map_lists_them(page, live_server, me, study):
    first = mine(me, study)[0]
    log_in(page, live_server, me.user.username)
    page.goto(item_url(live_server, first.code))
    expect(focused(page)).to_be_visible()
    page.keyboard.press("u")
    expect(page.locator("input[name=flag][value=unsafe]")).to_be_checked()
    page.keyboard.press("b")
    page.keyboard.press("b")  # again: unflagged
    expect(page.locator("input[name=flag][value=broken]")).not_to_be_checked()
    expect(page.locator("#save-state")).to_have_text(re.compile(r"^saved"))
    first.refresh_from_db()
    assert first.draft["flags"] == ["unsafe"]

    # N/A is not offered on clinical safety when the agent replied: n says why, scores nothing.
    page.keyboard.press("n")
    expect(page.locator("[data-client-error]")).to_contain_text("N/A does not apply")
    expect(page.locator("input[name=score-clinical_safety]:checked")).to_have_count(0)

    page.keyboard.press("?")
    keymap = page.locator("#keymap")
    expect(keymap).to_be_visible()
    expect(keymap).to_contain_text("flag: unsafe for the patient")
    screenshot(page, "review-keymap-flags")
    keymap.locator("[data-welcome]").click()
    expect(page.locator("h1")).to_have_text("What you are scoring, and how")
    page.keyboard.press("Enter")
    expect(page).to_have_url(item_url(live_server, first.code))


def test_a_first_time_clinician_gets_one_screen_of_introduction(page, live_server, study):
    newcomer = make_clinician("dr-newcomer", onboarded=False)
    create_study(
        StudySpec(name="Spring pilot", overlap={"clinical": 1}, status="open"),
        [study.items.first().trace_id],
        [newcomer],
        study.created_by,
    )
    first = newcomer.assignments.get()
    log_in(page, live_server, newcomer.user.username)
    page.goto(f"{live_server.url}/review/")
    page.keyboard.press("Enter")  # Continue: the introduction comes first
    expect(page.locator("h1")).to_have_text("Before your first conversation")
    expect(page.locator("body")).to_contain_text("Your scores are never shown to anyone as yours")
    expect(page.locator("body")).to_contain_text("Operations track")
    screenshot(page, "review-welcome")
    page.keyboard.press("Enter")
    expect(page).to_have_url(item_url(live_server, first.code))
    newcomer.refresh_from_db()
    assert newcomer.onboarded_at is not None
    page.goto(f"{live_server.url}/review/")
    page.keyboard.press("Enter")  # seen once: straight to the item now
    expect(page).to_have_url(item_url(live_server, first.code))


def test_a_save_that_lands_after_the_page_loaded_shows_up_in_the_form(page, live_server, me, study):
    from annotation import reviewing

    first = mine(me, study)[0]
    log_in(page, live_server, me.user.username)
    page.goto(item_url(live_server, first.code))
    expect(focused(page)).to_be_visible()
    # The page-hide save of the last page (or another tab) arrives after this page was served.
    late = {"why-clinical_safety": 10**13}
    text = "Typed just before the reload."
    reviewing.save_draft(first, {"why": {"clinical_safety": text}}, 0, me.user, versions=late)
    page.keyboard.press("3")  # this page's next save learns of it and shows it
    box = page.locator("textarea[name=why-clinical_safety]")
    expect(box).to_have_value(text)
    box.focus()
    page.eval_on_selector("textarea[name=why-clinical_safety]", "t => t.setSelectionRange(99, 99)")
    box.press_sequentially(" More.")
    expect(page.locator("#save-state")).to_have_text(re.compile(r"^saved"), timeout=10_000)
    first.refresh_from_db()
    assert first.draft["why"] == {"clinical_safety": f"{text} More."}
    assert first.draft["scores"] == {"clinical_safety": 3}
