"""The web import (issue 23, Must 3; issue 34, finding 3): a researcher uploads a file in any
format import_traces reads, a background job checks it and the status page shows what would
be created with nothing written, the researcher confirms once, the job imports it and the
page links the run. Bad input is one line with nothing written, a second confirmation or a
task delivered twice imports nothing more, and the web request never reads the file.

`jobs_sent` stands in for the broker: it records what the web sent, and `work` runs it as a
worker would (`run_import_job`, the task's body)."""

import json
import os
import stat
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils.html import escape

from patientagentbench.interchange import import_jobs, importer, staging
from patientagentbench.interchange.importer import sha256_of
from patientagentbench.models import ImportJob, Run, Suite, Task, Trace
from patientagentbench.runs import workers
from patientagentbench.runs.claims import claim_row
from tests.factories import heard, silent
from tests.patientagentbench.interchange.test_import_validation import CONVERSATIONS, RELEASE, jsonl

pytestmark = pytest.mark.django_db


def counts() -> tuple[int, ...]:
    return tuple(m.objects.count() for m in (Run, Suite, Task, Trace))


@pytest.fixture
def jobs_sent(monkeypatch, django_capture_on_commit_callbacks):
    """What the web sent to the broker (job ids), sent as each request's writes commit."""
    sent: list[int] = []
    monkeypatch.setattr(import_jobs.import_job, "delay", sent.append)
    return sent


def work(sent: list[int]) -> None:
    """A worker taking every message sent so far, once each."""
    while sent:
        import_jobs.run_import_job(sent.pop(0), worker="")


@pytest.fixture
def staff(client, researcher, settings, tmp_path, jobs_sent, django_capture_on_commit_callbacks):
    settings.VAR_DIR = tmp_path
    client.force_login(researcher)
    client.committing = django_capture_on_commit_callbacks
    return client


def upload(client, name: str, raw: bytes, **fields):
    with client.committing(execute=True):
        return client.post(
            reverse("import_upload"), {"file": SimpleUploadedFile(name, raw), **fields}
        )


def confirm(client, job: ImportJob, **options):
    with client.committing(execute=True):
        return client.post(reverse("import_confirm", args=[job.pk]), **options)


def status_page(client, job: ImportJob, htmx: bool = False):
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return client.get(reverse("import_status", args=[job.pk]), **headers)


def checked(client, sent, name: str, raw: bytes, **fields) -> ImportJob:
    """Uploaded and checked by a worker: the job waiting for its confirmation."""
    response = upload(client, name, raw, **fields)
    assert response.status_code == 302, response.content.decode()[:2000]
    job = ImportJob.objects.get(pk=int(response.url.rstrip("/").rsplit("/", 1)[-1]))
    work(sent)
    job.refresh_from_db()
    return job


def imported(client, sent, name: str, raw: bytes, **fields) -> ImportJob:
    job = checked(client, sent, name, raw, **fields)
    assert job.status == ImportJob.Status.DONE, job.error
    confirm(client, job)
    work(sent)
    job.refresh_from_db()
    return job


TWO_REPETITIONS = jsonl(model="zephyr-quokka-99b") + jsonl(model="zephyr-quokka-99b", repetition=1)


def test_the_upload_is_staged_and_checked_by_a_worker_not_the_web_request(
    staff, jobs_sent, monkeypatch
):
    before = counts()
    parsed, real_parse = [], import_jobs.parse_bytes
    monkeypatch.setattr(import_jobs, "parse_bytes", lambda *a: parsed.append(1) or real_parse(*a))
    response = upload(staff, "traces.jsonl", TWO_REPETITIONS)
    job = ImportJob.objects.get()
    assert response.status_code == 302 and response.url == reverse("import_status", args=[job.pk])
    assert jobs_sent == [job.pk] and job.stage == ImportJob.Stage.CHECK
    assert (job.status, job.file_name, job.size) == ("queued", "traces.jsonl", len(TWO_REPETITIONS))
    assert parsed == [] and staging.staged(sha256_of(TWO_REPETITIONS)) == TWO_REPETITIONS
    assert "Waiting for a worker" in status_page(staff, job).content.decode()

    work(jobs_sent)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE, job.error
    assert parsed == [1]
    preview = job.preview
    assert (preview["traces"], preview["cells"], preview["repetitions"]) == (2, 1, 2)
    assert preview["models"] == ["zephyr-quokka-99b"] and preview["new_suite"]
    assert preview["suite"] == "hostile-bench" and preview["new_tasks"] == 1
    text = status_page(staff, job).content.decode()
    assert "trace JSONL" in text and "zephyr-quokka-99b" in text and "Import 2 traces" in text
    assert counts() == before  # checked, rolled back: nothing written
    assert staging.staged(sha256_of(TWO_REPETITIONS)) == TWO_REPETITIONS


def test_confirming_imports_the_checked_bytes_and_the_page_links_the_run(
    staff, jobs_sent, researcher
):
    job = checked(staff, jobs_sent, "traces.jsonl", TWO_REPETITIONS)
    response = confirm(staff, job)
    assert response.url == reverse("import_status", args=[job.pk]) and jobs_sent == [job.pk]
    assert "Importing" in status_page(staff, job).content.decode() and not Run.objects.exists()
    work(jobs_sent)
    run = Run.objects.get()
    job.refresh_from_db()
    assert (job.status, job.stage, job.run) == ("done", "import", run)
    assert (run.label, run.created_by, run.traces.count()) == ("traces.jsonl", researcher, 2)
    assert run.status == Run.Status.FINISHED
    assert staging.staged(sha256_of(TWO_REPETITIONS)) is None  # discarded after the import
    text = status_page(staff, job).content.decode()
    assert "Imported 2 traces (0 errored) in 1 cells from traces.jsonl." in text
    assert reverse("run_detail", args=[run.pk]) in text


def test_two_confirmations_queue_one_import_and_make_one_run(staff, jobs_sent):
    job = checked(staff, jobs_sent, "traces.jsonl", TWO_REPETITIONS)
    confirm(staff, job)
    second = confirm(staff, job, follow=True)  # a double click, or a second tab
    assert jobs_sent == [job.pk]
    assert "confirmed already: nothing more was queued" in second.content.decode()
    work(jobs_sent)
    confirm(staff, job)  # after the import, too
    assert jobs_sent == [] and Run.objects.count() == 1


def test_a_task_delivered_twice_checks_once_and_imports_once(staff, jobs_sent):
    job = checked(staff, jobs_sent, "traces.jsonl", TWO_REPETITIONS)
    import_jobs.run_import_job(job.pk)  # the check's message again: nothing to claim
    job.refresh_from_db()
    assert (job.stage, job.status, job.attempts) == ("check", "done", 1)
    confirm(staff, job)
    jobs_sent.append(job.pk)  # the broker delivers the import twice
    work(jobs_sent)
    assert Run.objects.count() == 1 and Trace.objects.count() == 2


def test_an_import_taken_back_from_a_worker_presumed_dead_is_written_once(
    staff, jobs_sent, monkeypatch
):
    """A worker goes silent while reading; a live worker's heartbeat takes the job back and
    sends it again. The silent worker then writes nothing (its claim is gone), and the job's
    second claim makes the one run."""
    job = checked(staff, jobs_sent, "traces.jsonl", TWO_REPETITIONS)
    confirm(staff, job)
    silent_worker = heard("quiet@box#1#aa")
    real_parse = import_jobs.parse_bytes

    def parse_then_go_quiet(raw, progress):
        parsed = real_parse(raw, progress)
        if ImportJob.objects.get(pk=job.pk).attempts == 2:  # the first import claim
            silent(silent_worker)
            with staff.committing(execute=True):
                workers.recover_lost_work()  # a live worker's heartbeat
        return parsed

    monkeypatch.setattr(import_jobs, "parse_bytes", parse_then_go_quiet)
    import_jobs.run_import_job(jobs_sent.pop(), worker=silent_worker)
    assert not Run.objects.exists() and set(jobs_sent) == {job.pk}  # taken back, sent again
    job.refresh_from_db()
    assert (job.status, job.worker) == ("queued", "")
    work(jobs_sent)
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("done", 3) and Run.objects.count() == 1


def test_a_bad_record_half_way_is_one_line_and_nothing_is_written_or_kept(staff, jobs_sent):
    before = counts()
    good = b"".join(jsonl(task_id=f"task-{i}") for i in range(40))
    bad = good + jsonl(model="m" * 300) + good
    job = checked(staff, jobs_sent, "bad.jsonl", bad)
    assert job.status == ImportJob.Status.ERROR and job.stage == ImportJob.Stage.CHECK
    assert job.error.startswith("bad.jsonl: line 41, field 'model'") and "\n" not in job.error
    assert job.error.endswith("Nothing was imported.")
    response = status_page(staff, job)
    text = response.content.decode()
    assert escape(job.error) in text and 'role="alert"' in text
    assert counts() == before and staging.staged(sha256_of(bad)) is None


def test_a_failure_while_writing_the_run_leaves_nothing_half_imported(
    staff, jobs_sent, monkeypatch
):
    """The check passed; the import fails after its traces were written (here: computing the
    cells). The run, its traces, tasks and suite go with the transaction."""
    job = checked(staff, jobs_sent, "traces.jsonl", TWO_REPETITIONS)
    before = counts()
    confirm(staff, job)

    def cells_fail(run_id):
        assert Trace.objects.filter(run_id=run_id).count() == 2  # written, not committed
        raise RuntimeError("disk full")

    monkeypatch.setattr(importer, "recompute_run_metrics", cells_fail)
    work(jobs_sent)
    job.refresh_from_db()
    assert counts() == before and job.run is None
    assert (job.status, job.error) == (
        "error",
        "The import failed (RuntimeError: disk full). Nothing was imported.",
    )
    assert staging.staged(sha256_of(TWO_REPETITIONS)) is None


def test_the_progress_partial_shows_conversations_read_while_a_worker_reads(
    staff, jobs_sent, monkeypatch
):
    monkeypatch.setattr(import_jobs, "PROGRESS_EVERY_S", 0.0)
    raw = b"".join(jsonl(task_id=f"task-{i}") for i in range(5))
    response = upload(staff, "five.jsonl", raw)
    job = ImportJob.objects.get()
    seen = {}
    real_call = import_jobs._Reporter.__call__

    def look_at_the_page(reporter, read, total):
        real_call(reporter, read, total)
        if read == 3:  # what the page polls mid-read
            seen["partial"] = status_page(staff, job, htmx=True)

    monkeypatch.setattr(import_jobs._Reporter, "__call__", look_at_the_page)
    work(jobs_sent)
    partial = seen["partial"]
    assert response.status_code == 302 and partial.status_code == 200  # still polling
    text = partial.content.decode()
    assert "<html" not in text and 'id="live"' in text and 'hx-trigger="every 1s"' in text
    assert 'data-testid="import-read">3</b> of 5' in text and "Checking the file" in text
    assert 'aria-valuenow="3"' in text
    ended = status_page(staff, job, htmx=True)
    assert ended.status_code == 286 and "hx-trigger" not in ended.content.decode()  # stop


def test_the_same_file_uploaded_twice_is_one_job(staff, jobs_sent):
    upload(staff, "traces.jsonl", TWO_REPETITIONS)
    upload(staff, "traces.jsonl", TWO_REPETITIONS)  # two tabs
    job = ImportJob.objects.get()
    assert jobs_sent == [job.pk]


def test_a_file_already_imported_links_the_earlier_run_unless_asked_again(staff, jobs_sent):
    first = imported(staff, jobs_sent, "traces.jsonl", TWO_REPETITIONS).run
    response = upload(staff, "renamed.jsonl", TWO_REPETITIONS)
    assert response.status_code == 400 and response.context["earlier"] == first
    assert response.context["problem"].endswith("Nothing was imported.")
    assert reverse("run_detail", args=[first.pk]) in response.content.decode()
    assert ImportJob.objects.count() == 1 and jobs_sent == []

    again = imported(staff, jobs_sent, "renamed.jsonl", TWO_REPETITIONS, again="on")
    assert again.status == ImportJob.Status.DONE and Run.objects.count() == 2
    assert ImportJob.objects.count() == 2


def test_a_job_that_failed_is_checked_again_when_its_file_is_uploaded_again(
    staff, jobs_sent, monkeypatch
):
    real_preview = import_jobs.preview_records

    def fail_once(*args, **kwargs):
        monkeypatch.setattr(import_jobs, "preview_records", real_preview)
        raise RuntimeError("database away")

    monkeypatch.setattr(import_jobs, "preview_records", fail_once)
    job = checked(staff, jobs_sent, "traces.jsonl", TWO_REPETITIONS)
    assert job.status == ImportJob.Status.ERROR and "database away" in job.error
    again = checked(staff, jobs_sent, "traces.jsonl", TWO_REPETITIONS)
    assert again.pk == job.pk and again.status == ImportJob.Status.DONE, again.error
    assert again.error == "" and again.preview["traces"] == 2 and again.attempts == 2


@pytest.mark.parametrize(
    ("name", "raw", "words"),
    [
        ("release.json", json.dumps(RELEASE).encode(), "seed paper's release"),
        ("conversations.json", json.dumps(CONVERSATIONS).encode(), "LangChain"),
    ],
)
def test_every_command_line_format_imports_from_the_web(
    staff, jobs_sent, office_suite, name, raw, words
):
    job = checked(staff, jobs_sent, name, raw)
    assert job.status == ImportJob.Status.DONE, job.error
    assert words in job.preview["format_name"]
    traces = job.preview["traces"]
    confirm(staff, job)
    work(jobs_sent)
    assert Run.objects.get().traces.count() == traces > 0


def test_an_inspect_log_imports_from_the_web(staff, jobs_sent, tmp_path):
    from tests.patientagentbench.interchange.inspect_logs import make_log

    log: Path = make_log(tmp_path / "inspect")
    job = imported(staff, jobs_sent, log.name, log.read_bytes())
    assert job.preview["format_name"] == "an Inspect AI log"
    assert job.run.traces.count() == job.preview["traces"] == 6


def test_a_file_over_the_limit_is_refused_before_reading(staff, settings):
    settings.IMPORT_MAX_MB = 0
    response = upload(staff, "traces.jsonl", TWO_REPETITIONS)
    assert response.status_code == 400
    assert "PAB_IMPORT_MAX_MB" in response.content.decode() and not ImportJob.objects.exists()


def test_a_staged_file_swept_before_its_check_is_one_line_asking_to_upload_again(staff, jobs_sent):
    upload(staff, "traces.jsonl", TWO_REPETITIONS)
    staging.discard(sha256_of(TWO_REPETITIONS))
    work(jobs_sent)
    job = ImportJob.objects.get()
    assert job.error == (
        "traces.jsonl: the uploaded file is no longer waiting (kept one day): upload it "
        "again. Nothing was imported."
    )


def test_only_researchers_and_admins_import_or_see_imports(
    client, clinician, outsider, researcher, jobs_sent
):
    job = ImportJob.objects.create(
        key="k", sha256="a" * 64, file_name="t.jsonl", created_by=researcher
    )
    for person in (clinician, outsider):
        client.force_login(person)
        assert client.get(reverse("import_upload")).status_code == 403
        post = {"file": SimpleUploadedFile("t.jsonl", TWO_REPETITIONS)}
        assert client.post(reverse("import_upload"), post).status_code == 403
        assert client.get(reverse("import_status", args=[job.pk])).status_code == 403
        assert client.post(reverse("import_confirm", args=[job.pk])).status_code == 403
    assert ImportJob.objects.count() == 1 and jobs_sent == [] and not Run.objects.exists()


def test_an_upload_left_unconfirmed_for_a_day_is_swept_by_the_next(staff):
    upload(staff, "traces.jsonl", TWO_REPETITIONS)
    digest = sha256_of(TWO_REPETITIONS)
    (staged_file,) = Path(staging._folder()).glob("*.upload")
    day_ago = time.time() - staging.KEEP_S - 60
    os.utime(staged_file, (day_ago, day_ago))
    other = jsonl(final_response="Another file.")
    upload(staff, "other.jsonl", other)
    assert staging.staged(digest) is None and staging.staged(sha256_of(other)) == other


def test_staged_uploads_are_readable_by_the_web_server_alone(staff):
    """Issue 34, finding 7: the folder and its files were left to the umask (0755 / 0644)."""
    folder = Path(staging._folder())
    folder.chmod(0o755)  # as an older release made it
    upload(staff, "traces.jsonl", TWO_REPETITIONS)
    (staged_file,) = folder.glob("*.upload")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(staged_file.stat().st_mode) == 0o600


@pytest.mark.parametrize("leftover", [".x1.partial", ".importing"])
def test_half_written_uploads_older_than_a_day_are_swept_and_fresh_ones_kept(staff, leftover):
    """A half-written upload, or the claim of an import whose process died."""
    folder = Path(staging._folder())
    stale, fresh = folder / f"{'a' * 64}{leftover}", folder / f"{'b' * 64}{leftover}"
    for path in (stale, fresh):
        path.write_bytes(b"half an upload")
    day_ago = time.time() - staging.KEEP_S - 60
    os.utime(stale, (day_ago, day_ago))
    upload(staff, "traces.jsonl", TWO_REPETITIONS)
    assert not stale.exists() and fresh.exists()  # fresh: another upload or import uses it
    assert [path for path in folder.glob("*.partial") if path != fresh] == []


def test_a_job_is_claimed_once_by_the_shared_lifecycle(staff, jobs_sent):
    """The import job is a job like the others: a second claim of a running one fails."""
    upload(staff, "traces.jsonl", TWO_REPETITIONS)
    job = ImportJob.objects.get()
    assert claim_row(ImportJob.objects.all(), job.pk, "w1") is not None
    assert claim_row(ImportJob.objects.all(), job.pk, "w2") is None


def test_the_upload_page_lists_recent_imports_to_find_a_check_waiting(staff, jobs_sent):
    job = checked(staff, jobs_sent, "traces<script>.jsonl", TWO_REPETITIONS)
    text = staff.get(reverse("import_upload")).content.decode()
    assert reverse("import_status", args=[job.pk]) in text
    assert "checked: waiting for confirmation" in text
    assert "traces&lt;script&gt;.jsonl" in text and "<script>.jsonl" not in text
