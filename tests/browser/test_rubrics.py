"""A researcher brings the team's rubric: the Rubrics page refuses a bad file in one line,
imports the good one (chosen as a file), shows its seven points, and New study offers it."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from jury.rubrics import STORE
from ratings.rubric import cached_rubric
from tests.browser.conftest import log_in, screenshot

pytestmark = pytest.mark.browser

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "nurse-line-v1.json"


@pytest.fixture(autouse=True)
def fresh_caches():
    cached_rubric.cache_clear()
    STORE.forget()
    yield
    cached_rubric.cache_clear()
    STORE.forget()


def test_a_researcher_imports_a_rubric_and_a_new_study_offers_it(
    page, live_server, researcher, tmp_path
):
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/research/rubrics/")
    expect(page.get_by_test_id("rubrics")).to_contain_text("built in")

    bad = tmp_path / "bad.json"
    bad.write_text(EXAMPLE.read_text().replace('"pass_threshold": 4', '"pass_threshold": 8'))
    page.set_input_files("#id_file", str(bad))
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_test_id("rubric-error")).to_have_text(
        "the rubric file: pass_threshold must be a score from 1 to 7, got 8"
    )
    screenshot(page, "rubrics-refused")

    page.set_input_files("#id_file", str(EXAMPLE))
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_test_id("rubric-scale")).to_contain_text(
        "Scores 1 to 7; a score of 4 or more passes. 3 scored dimensions, 1 realism."
    )
    expect(page.get_by_test_id("dimension")).to_have_count(4)
    screenshot(page, "rubric-imported")

    page.goto(f"{live_server.url}/research/rubrics/")
    expect(page.get_by_test_id("rubrics")).to_contain_text("Nurse line triage")
    screenshot(page, "rubrics")
    page.goto(f"{live_server.url}/research/studies/new/")
    rubric = page.locator("#id_rubric")
    expect(rubric).to_contain_text("Nurse line triage v1 (3 scored dimensions, 1 to 7, pass ≥ 4)")
