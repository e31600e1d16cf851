"""The round form shows only the picked source's fields (issue 20 Found 9), previews the
prefilled sample on the first visit, and still shows and takes every field without script."""

import pytest
from playwright.sync_api import expect

from annotation.models import Study
from tests.annotation.test_research_views import make_clinician
from tests.browser.conftest import log_in, screenshot
from tests.browser.test_research import conversations  # noqa: F401  (a fixture)

pytestmark = pytest.mark.browser


def test_the_round_form_shows_the_picked_sources_fields(
    page,
    live_server,
    researcher,
    conversations,  # noqa: F811
):
    clinician, second = make_clinician("toggle"), make_clinician("toggle-2")
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/research/rounds/new/")
    sample, explicit, earlier = (
        page.get_by_test_id(f"source-{name}") for name in ("sample", "explicit", "round")
    )
    expect(sample).to_be_visible()
    expect(explicit).to_be_hidden()
    expect(earlier).to_be_hidden()
    expect(page.get_by_test_id("sample-total")).to_have_text("10")  # previewed at once
    screenshot(page, "round-source-sample")

    page.get_by_label("These conversations (trace ids)").check()
    expect(explicit).to_be_visible()
    expect(sample).to_be_hidden()
    expect(page.locator("#preview")).to_be_hidden()  # the sampler's preview goes with it
    screenshot(page, "round-source-explicit")

    ids = list(conversations.traces.order_by("pk").values_list("pk", flat=True)[:2])
    page.fill("#id_name", "Toggled")
    page.fill("#id_trace_ids", f"{ids[0]}, {ids[1]}")
    page.check(f"#id_clinicians input[value='{clinician.pk}']")
    page.click("text=Create round")
    # One clinician alone can never pass (alpha compares clinicians): refused, with why.
    expect(page.get_by_role("alert")).to_contain_text("fewer than 2 clinicians gave scores")
    screenshot(page, "round-source-refused-alone")
    page.check(f"#id_clinicians input[value='{second.pk}']")
    page.click("text=Create round")
    expect(page.locator("h1")).to_contain_text("Reference scores")
    assert sorted(Study.objects.get(name="Toggled").items.values_list("trace_id", flat=True)) == ids

    page.goto(f"{live_server.url}/research/rounds/new/")
    page.get_by_label("The sampler (filters below)").check()
    expect(sample).to_be_visible()
    expect(explicit).to_be_hidden()


def test_without_script_every_sources_fields_stay_shown(browser, live_server, researcher):
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1280, "height": 900}
    )
    page = context.new_page()
    try:
        log_in(page, live_server, researcher.username)
        page.goto(f"{live_server.url}/research/rounds/new/")
        for name in ("sample", "explicit", "round"):
            expect(page.get_by_test_id(f"source-{name}")).to_be_visible()
    finally:
        context.close()
