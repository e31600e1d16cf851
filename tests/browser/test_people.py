"""A researcher tells clinicians apart: the People page names them (name, email, username)
and every form that offers clinicians reads "Dr Ana Silva (C-…) · clinical · N open"; codes
never break across lines."""

import re

import pytest
from playwright.sync_api import expect

from annotation.models import Clinician
from tests.annotation.test_research_views import make_clinician
from tests.browser.conftest import log_in, screenshot

pytestmark = pytest.mark.browser


def named(username: str, first: str, last: str, track: str = "clinical") -> Clinician:
    clinician = make_clinician(username, track)
    clinician.user.first_name, clinician.user.last_name = first, last
    clinician.user.save()
    return clinician


def test_people_page_names_everyone_and_codes_do_not_wrap(page, live_server, researcher):
    ana = named("ana", "Dr Ana", "Silva")
    log_in(page, live_server, researcher.username)
    page.set_viewport_size({"width": 700, "height": 800})  # narrow: a wrapping code would show
    page.goto(f"{live_server.url}/research/people/")
    row = page.locator("tr", has=page.get_by_text(ana.code))
    expect(row).to_contain_text("Dr Ana Silva")
    expect(row).to_contain_text("ana@example.org")
    expect(row.locator("td").nth(3)).to_have_text("ana@example.org")  # the username column
    code = row.get_by_test_id("code")
    assert code.evaluate("e => getComputedStyle(e).whiteSpace") == "nowrap"
    box = code.bounding_box()
    line = code.evaluate("e => parseFloat(getComputedStyle(e).lineHeight) || 20")
    assert box["height"] < 1.5 * line, "the code broke across lines"
    screenshot(page, "research-people")


@pytest.mark.parametrize("path", ["/research/rounds/new/", "/research/studies/new/"])
def test_forms_offer_clinicians_by_name_code_track_and_load(page, live_server, researcher, path):
    ana = named("ana", "Dr Ana", "Silva")
    nameless = make_clinician("nameless", "operations")
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}{path}")
    offered = page.locator("#id_clinicians")
    expect(offered).to_contain_text(f"Dr Ana Silva ({ana.code}) · clinical · 0 open")
    expect(offered).to_contain_text(re.compile(rf"(?<!\()\b{nameless.code} · operations · 0 open"))
    if "rounds" in path:
        screenshot(page, "research-round-clinicians")


def test_people_table_fits_its_container_at_1280(page, live_server, researcher):
    """Issue 33: at 1280 px the table ran past the page's column (long emails and usernames,
    the row's actions)."""
    for n in range(3):
        named(
            f"dr.anastasia.silva-fernandes{n}@northwestern-university-hospital.example.org",
            "Dr Anastasia",
            f"Silva-Fernandes {n}",
        )
    Clinician.objects.update(specialty="Emergency medicine and urgent care")
    log_in(page, live_server, researcher.username)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/research/people/")
    screenshot(page, "research-people-1280")
    main = page.locator("main")
    width = main.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert width[0] <= width[1], f"main scrolls: scrollWidth {width[0]} > clientWidth {width[1]}"
    table_right = page.locator("table").first.evaluate("e => e.getBoundingClientRect().right")
    main_right = main.evaluate(
        "e => e.getBoundingClientRect().right - parseFloat(getComputedStyle(e).paddingRight)"
    )
    assert table_right <= main_right + 0.5, (table_right, main_right)
