"""A researcher imports transcripts from the runs list: upload, preview, confirm, run page."""

import pytest
from playwright.sync_api import expect

from patientagentbench.models import Run
from tests.browser.conftest import log_in, screenshot
from tests.patientagentbench.interchange.test_import_validation import jsonl

pytestmark = pytest.mark.browser


def test_researcher_imports_a_file_through_preview_and_confirm(
    page, live_server, researcher, tmp_path, settings
):
    settings.VAR_DIR = tmp_path
    file = tmp_path / "epochs.jsonl"
    file.write_bytes(b"".join(jsonl(model="zephyr-quokka-99b", repetition=i) for i in range(3)))
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/runs/")
    page.get_by_role("link", name="Import transcripts").click()
    page.get_by_label("Transcript file").set_input_files(str(file))
    page.get_by_role("button", name="Preview the import").click()
    preview = page.get_by_test_id("import-preview")
    expect(preview).to_contain_text("trace JSONL")
    expect(page.get_by_test_id("preview-traces")).to_have_text("3")
    expect(preview).to_contain_text("zephyr-quokka-99b")
    assert Run.objects.count() == 0
    screenshot(page, "import-preview")
    page.get_by_test_id("import-confirm").click()
    expect(page.locator(".messages")).to_contain_text("Imported 3 traces")
    run = Run.objects.get()
    assert page.url.endswith(f"/runs/{run.pk}/")
    header = page.locator("p.muted.small").first
    expect(header).to_contain_text(f"imported by {researcher.username}")
    expect(header).not_to_contain_text("iterations")
    screenshot(page, "import-done")
