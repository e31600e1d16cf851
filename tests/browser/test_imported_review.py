"""An Inspect AI log goes all the way to blinded review in a browser (issue 33): a researcher
imports it on Runs → Import transcripts, builds a study of its conversations on the research
pages (the run offered as imported) and opens it; a clinician scores an item that shows the
task, not a patient chart, and nothing of the model; the jury dashboard counts the scores."""

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from annotation.models import Study, Submission
from patientagentbench.models import Run
from tests.annotation.test_review_views import make_clinician
from tests.browser.conftest import log_in, screenshot
from tests.patientagentbench.interchange.inspect_logs import make_log

pytestmark = pytest.mark.browser
MODEL = "mockllm/zephyr-quokka-99b"


def test_an_inspect_log_is_imported_reviewed_and_counted(
    page, browser, live_server, celery_worker_thread, researcher, tmp_path, settings
):
    settings.VAR_DIR = tmp_path
    log = make_log(tmp_path / "logs", model_name=MODEL)  # 2 samples × 3 epochs
    reviewer = make_clinician("dr-imported")
    reviewer.onboarded_at = timezone.now()  # past the one-screen introduction
    reviewer.save(update_fields=["onboarded_at"])

    # Import, through the background check's preview and the background import.
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/runs/import/")
    page.get_by_label("Transcript file").set_input_files(str(log))
    page.get_by_role("button", name="Preview the import").click()
    expect(page.get_by_test_id("preview-traces")).to_have_text("6", timeout=60_000)  # a worker
    page.get_by_test_id("import-confirm").click()
    expect(page.get_by_test_id("import-done")).to_contain_text("Imported 6 traces", timeout=60_000)
    run = Run.objects.get()

    # A study of the imported run, from the research pages.
    page.goto(f"{live_server.url}/research/")
    page.click("text=Studies")
    page.click("text=New study")
    offered = page.locator("#id_runs label", has_text=f"Run {run.pk} · imported")
    expect(offered).to_contain_text("6 conversations")
    page.fill("#id_name", "Imported pilot")
    offered.locator("input").check()
    page.fill("#id_n_items", "6")
    page.fill("#id_overlap_clinical", "1")
    page.fill("#id_overlap_operations", "0")
    page.check(f"#id_clinicians input[value='{reviewer.pk}']")
    expect(page.get_by_test_id("sample-total")).to_have_text("6")
    screenshot(page, "imported-study-new")
    page.click("text=Create study")
    expect(page.locator("h1")).to_contain_text("Imported pilot")
    page.get_by_role("button", name="Open the study to clinicians").click()
    study = Study.objects.get(name="Imported pilot")
    assert study.items.count() == 6 and study.status == Study.Status.OPEN

    # The clinician scores the first item: the task, the conversation, no chart, no model.
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    clinician = context.new_page()
    log_in(clinician, live_server, reviewer.user.username)
    clinician.goto(f"{live_server.url}/review/")
    clinician.keyboard.press("Enter")  # Continue
    task = clinician.get_by_test_id("task-box")
    expect(task).to_contain_text("When was")
    expect(clinician.locator(".conversation")).to_contain_text("lookup_patient")
    expect(clinician.locator(".box.chart")).to_have_count(0)
    body = clinician.content()
    for token in ("zephyr-quokka", "mockllm", "ana-dob", "bo-dob", "chart-lookup"):
        assert token not in body, token
    screenshot(clinician, "imported-review-item")
    first_url = clinician.url
    for key in "45344":
        clinician.keyboard.press(key)
    expect(clinician.locator("[data-progress]")).to_have_text("all answered")
    clinician.keyboard.press("Enter")
    expect(clinician).not_to_have_url(first_url)
    context.close()
    submission = Submission.objects.get()
    assert submission.scores == {
        "clinical_safety": 4,
        "triage_quality": 5,
        "clinical_helpfulness": 3,
        "conversation_realism": 4,
        "patient_profile_realism": 4,
    }

    # The dashboards count the imported conversation's scores.
    page.goto(f"{live_server.url}/research/")
    page.click("text=Dashboards")
    expect(page.locator("h1")).to_have_text("Jury vs clinicians")
    expect(page.get_by_test_id("clinician-scores")).to_have_text("5")
    expect(page.get_by_test_id("conversations")).to_have_text("1")
    screenshot(page, "imported-dashboard-jury")
    page.click("nav.tabs >> text=Inter-rater")
    # One clinician per item: no alpha, and the page says why rather than a figure.
    expect(page.locator("body")).to_contain_text("fewer than 2 raters gave scores")
    screenshot(page, "imported-dashboard-raters")
