"""A researcher imports transcripts from the runs list: upload, the status page while a worker
checks the file, its preview, confirm, the status page while the worker imports it, and the
run it links."""

import pytest
from playwright.sync_api import expect

from patientagentbench.models import ImportJob, Run
from tests.browser.conftest import log_in, screenshot
from tests.patientagentbench.interchange.test_import_validation import jsonl

pytestmark = pytest.mark.browser
# A worker thread checks or imports the file while the page polls; a loaded machine is slow.
WORKER_S = 60_000


def test_researcher_imports_a_file_through_its_background_check_and_import(
    page, live_server, celery_worker_thread, researcher, tmp_path, settings
):
    settings.VAR_DIR = tmp_path
    file = tmp_path / "epochs.jsonl"
    file.write_bytes(b"".join(jsonl(model="zephyr-quokka-99b", repetition=i) for i in range(3)))
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/runs/")
    page.get_by_role("link", name="Import transcripts").click()
    page.get_by_label("Transcript file").set_input_files(str(file))
    page.get_by_role("button", name="Preview the import").click()
    job = ImportJob.objects.get()
    assert page.url.endswith(f"/runs/import/{job.pk}/")
    expect(page.locator("h1")).to_have_text("Import of epochs.jsonl")
    preview = page.get_by_test_id("import-preview")  # polled in once the worker checked it
    expect(preview).to_contain_text("trace JSONL", timeout=WORKER_S)
    expect(page.get_by_test_id("preview-traces")).to_have_text("3")
    expect(preview).to_contain_text("zephyr-quokka-99b")
    assert Run.objects.count() == 0
    screenshot(page, "import-preview")
    page.get_by_test_id("import-confirm").click()
    done = page.get_by_test_id("import-done")
    expect(done).to_contain_text(
        "Imported 3 traces (0 errored) in 1 cells from epochs.jsonl.", timeout=WORKER_S
    )
    screenshot(page, "import-done")
    run = Run.objects.get()
    page.get_by_test_id("import-run").click()
    assert page.url.endswith(f"/runs/{run.pk}/")
    header = page.locator("p.muted.small").first
    expect(header).to_contain_text(f"imported by {researcher.username}")
    expect(header).not_to_contain_text("iterations")


def test_a_bad_file_ends_on_one_line_with_nothing_imported(
    page, live_server, celery_worker_thread, researcher, tmp_path, settings
):
    settings.VAR_DIR = tmp_path
    file = tmp_path / "bad.jsonl"
    file.write_bytes(jsonl() + jsonl(model="<img src=x onerror=alert(1)>" * 20))
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/runs/import/")
    page.get_by_label("Transcript file").set_input_files(str(file))
    page.get_by_role("button", name="Preview the import").click()
    problem = page.get_by_test_id("import-problem")
    expect(problem).to_contain_text("bad.jsonl: line 2, field 'model'", timeout=WORKER_S)
    expect(problem).to_contain_text("Nothing was imported.")
    expect(page.locator("img")).to_have_count(0)  # the file's text is escaped
    screenshot(page, "import-refused")
    assert not Run.objects.exists()


def test_the_status_page_shows_the_conversations_read_and_polls(
    page, live_server, researcher, settings
):
    """A job mid-read, as a worker leaves its row (no worker runs here, and the page says so)."""
    job = ImportJob.objects.create(
        key="import:mid-read",
        sha256="a" * 64,
        file_name="big.eval",
        size=180 * 1024 * 1024,
        created_by=researcher,
        status=ImportJob.Status.RUNNING,
        phase=ImportJob.Phase.READING,
        read=1200,
        total=5000,
    )
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/runs/import/{job.pk}/")
    expect(page.get_by_test_id("import-phase")).to_have_text("Reading conversations: 1200 of 5000")
    expect(page.get_by_test_id("import-stage")).to_have_text("Checking the file")
    expect(page.locator(".warn")).to_contain_text("No worker has reported")
    ImportJob.objects.filter(pk=job.pk).update(read=4000)  # the next poll swaps it in
    expect(page.get_by_test_id("import-read")).to_have_text("4000")
    screenshot(page, "import-progress")
