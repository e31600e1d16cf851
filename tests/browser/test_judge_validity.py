"""Issue 40 in Chromium: a simulated judge that reads the outcome checks backwards, yet passes a
calibration round whose references are written backwards too, is shown as "inverts" beside
"qualified" on the panel page and the leaderboard; the jury dashboard withholds its envelope
verdict; an honest qualified panel reads "separates" on each dimension with enough
conversations (triage has too few, so its overall verdict is "not enough evidence"). The data
is built through the ORM with the helpers of tests/jury/test_judge_trust.py; only the pages
under test go through the browser."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from ratings.rubric import cached_rubric
from tests.annotation.test_dashboards import scored  # noqa: F401  (a fixture)
from tests.annotation.test_research_views import conversations  # noqa: F401  (a fixture)
from tests.browser.conftest import log_in, screenshot
from tests.jury.conftest import make_panel, simulated_model
from tests.jury.test_judge_trust import (  # noqa: F401  (fixtures)
    calibrated,
    calibration_round,
    checked_run,
    inverted_panel,
    qualified_but_inverting,
    qualified_but_inverting_on_the_dashboard,
    scored_by,
)
from tests.readable import raw_identifiers

pytestmark = pytest.mark.browser

# "AUC 0.00, 95% interval 0.00–0.26 by Newcombe …": the figure, its interval and its method.
SEPARATES = re.compile(r": separates — AUC (0\.[5-9]\d|1\.00), 95% interval 0\.[5-9]\d")
UNDECIDED = re.compile(r": not enough evidence — AUC")
AUC_WITH_INTERVAL = re.compile(r"AUC [01]\.\d\d, 95% interval [01]\.\d\d–[01]\.\d\d by Newcombe")


def open_standing(page, url):
    page.goto(url)
    standing = page.get_by_test_id("standing")
    expect(standing).to_be_visible()
    return standing


def assert_qualified_but_inverts(standing):
    expect(standing.get_by_test_id("qualified")).to_contain_text("qualified")
    validity = standing.get_by_test_id("validity-standing")
    expect(validity).to_have_attribute("data-verdict", "inverts")
    expect(validity).to_contain_text("Validity: inverts.")
    expect(validity).to_contain_text("Qualified by its calibration round, but")
    expect(validity.get_by_test_id("validity-dimensions")).to_contain_text(AUC_WITH_INTERVAL)
    expect(validity).to_contain_text("8 passed, 8 failed")


def test_a_qualified_judge_that_inverts_says_so_on_the_panel_page_and_the_leaderboard(
    page,
    live_server,
    researcher,
    checked_run,  # noqa: F811
    inverted_panel,  # noqa: F811
):
    panel = qualified_but_inverting(inverted_panel, checked_run)
    log_in(page, live_server, researcher.username)

    standing = open_standing(page, live_server.url + reverse("jury_panel", args=[panel.pk]))
    assert_qualified_but_inverts(standing)
    screenshot(page, "judge-validity-panel-inverts")
    assert raw_identifiers(page.content()) == []

    board_url = reverse("jury_leaderboard", args=[checked_run.pk, panel.pk])
    standing = open_standing(page, live_server.url + board_url)
    assert_qualified_but_inverts(standing)
    flags = page.get_by_test_id("dimension-validity")
    expect(flags.first).to_have_text("⚠ inverts")
    assert flags.count() >= 5  # each dimension column it reads backwards
    screenshot(page, "judge-validity-leaderboard-inverts")
    assert raw_identifiers(page.content()) == []
    assert tables_wider_than_their_box(page) == []  # nine columns fit 1280 px, no sideways scroll


def tables_wider_than_their_box(page) -> list[str]:
    return page.evaluate(
        """Array.from(document.querySelectorAll('table.leaderboard'))
            .filter(t => t.scrollWidth > t.parentElement.clientWidth + 1)
            .map(t => t.scrollWidth + ' px in ' + t.parentElement.clientWidth)"""
    )


def test_the_jury_dashboard_withholds_the_envelope_verdict_where_the_jury_inverts(
    page,
    live_server,
    researcher,
    qualified_but_inverting_on_the_dashboard,  # noqa: F811
):
    panel = qualified_but_inverting_on_the_dashboard
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}{reverse('research_dashboard_jury')}?panel={panel.pk}")
    withheld = page.get_by_test_id("not-qualified")
    expect(withheld).to_contain_text("Envelope verdicts withheld.")
    expect(withheld).to_contain_text("The jury's scores invert on")
    expect(page.get_by_test_id("envelope-headline")).to_contain_text(
        "Envelope verdicts withheld on"
    )
    validity = page.get_by_test_id("validity-standing")
    expect(validity).to_have_attribute("data-verdict", "inverts")
    expect(validity).to_contain_text(AUC_WITH_INTERVAL)
    expect(page.locator("#live")).to_contain_text("withheld: inverts")
    screenshot(page, "judge-validity-dashboard-withheld")


def test_an_honest_qualified_panel_reads_separates(
    page,
    live_server,
    researcher,
    checked_run,  # noqa: F811
):
    panel = make_panel("honest", simulated_model("sim-judge-a"))
    scored_by(panel, checked_run, repeat=1)
    calibrated(panel, calibration_round(checked_run, min_exact=0.0, min_adjacent=0.5))
    log_in(page, live_server, researcher.username)
    standing = open_standing(page, live_server.url + reverse("jury_panel", args=[panel.pk]))
    expect(standing.get_by_test_id("qualified")).to_contain_text("qualified")
    validity = standing.get_by_test_id("validity-standing")
    expect(validity).not_to_have_attribute("data-verdict", "inverts")
    # Which dimensions keep six conversations per group varies with the simulated judge's N/A
    # and unparseable answers (functions of ids): most separate, none inverts, any other is
    # undecided.
    dimensions = validity.get_by_test_id("validity-dimensions").locator("li")
    expect(dimensions).to_have_count(len(cached_rubric().scored))
    lines = dimensions.all_inner_texts()
    assert all(SEPARATES.search(line) or UNDECIDED.search(line) for line in lines), lines
    assert sum(bool(SEPARATES.search(line)) for line in lines) >= 4, lines
    expect(validity).to_contain_text(AUC_WITH_INTERVAL)
    expect(standing).not_to_contain_text("inverts")
    screenshot(page, "judge-validity-panel-separates")
