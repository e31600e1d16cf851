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
