"""A blind adjudicator in the browser (issue 20, Must 6): logs in, lands on the studies to
adjudicate, opens the queue, decides a dispute, then follows the study page, an item's audit
trail and the conversation; no page names the model that wrote the conversations."""

import pytest
from playwright.sync_api import expect

from annotation.models import Adjudication
from tests.annotation.test_adjudicator_blinding import (
    MODEL,
    PROFILE,
    STUDY_NAME,
    build_disputed_world,
    make_adjudicator,
)
from tests.browser.conftest import log_in, screenshot

pytestmark = pytest.mark.browser


@pytest.fixture
def disputed_world(researcher):
    return build_disputed_world(researcher)


def assert_unnamed(page) -> None:
    """Neither the page's text nor its source names the model, its simulated agent or a trace."""
    text, source = page.inner_text("body"), page.content()
    for secret in (MODEL, PROFILE, "/traces/", "/runs/", "Trace "):
        assert secret not in text and secret not in source, (page.url, secret)


def test_a_blind_adjudicator_decides_a_dispute_without_seeing_the_model(
    page, live_server, disputed_world
):
    adjudicator = make_adjudicator()
    item = disputed_world["items"][0]
    log_in(page, live_server, adjudicator.username)
    expect(page.locator("h1")).to_have_text("Adjudication")
    expect(page.get_by_test_id("adjudication-studies")).to_contain_text(STUDY_NAME)
    assert page.locator("header nav a").count() == 0  # no runs, jury or review menu
    assert_unnamed(page)
    screenshot(page, "adjudicator-home")

    page.click("text=Open the queue")
    expect(page.get_by_test_id("undecided")).to_contain_text("1 to decide")
    assert_unnamed(page)
    dispute = page.locator(f"#dispute-{item.pk}-clinical_safety")
    dispute.get_by_label("2", exact=True).check()
    dispute.locator("textarea").fill("Sent to urgent care, but only on the second ask.")
    dispute.locator("text=Record decision").click()
    expect(page.locator(f"#dispute-{item.pk}-clinical_safety")).to_contain_text("decided: 2")
    expect(page.get_by_test_id("undecided")).to_contain_text("0 to decide")
    assert_unnamed(page)
    screenshot(page, "adjudicator-decided")
    assert Adjudication.objects.get(item=item, decided_by=adjudicator).score == 2

    with page.expect_popup() as popup:
        page.locator(f"#item-{item.pk}").locator("text=read the conversation").click()
    conversation = popup.value
    expect(conversation.locator(".turn").first).to_be_visible()
    assert_unnamed(conversation)
    conversation.close()

    page.click(f"text=← {STUDY_NAME}")
    expect(page.get_by_test_id("blind-note")).to_be_visible()
    expect(page.get_by_test_id("progress-items").locator("thead")).not_to_contain_text("Model")
    assert page.locator("text=Export CSV").count() == 0
    assert_unnamed(page)
    screenshot(page, "adjudicator-study")

    page.locator(f"a[href='/research/items/{item.pk}/audit/']").click()
    expect(page.locator("h1")).to_have_text(f"Audit trail · item {item.pk}")
    expect(page.get_by_test_id("events")).to_contain_text("decided Clinical safety")
    expect(page.locator("body")).to_contain_text("Sent to urgent care")
    assert_unnamed(page)
    screenshot(page, "adjudicator-audit")
