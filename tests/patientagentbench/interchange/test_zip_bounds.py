"""Bounded imports (issue 34, finding 3): a small `.eval` that unpacks to far more than it
weighs is refused from its central directory before Inspect unpacks anything, on the web and
the command line alike; so is one with too many members, and one whose members lie about
their size. A log within the bounds imports as before."""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from patientagentbench.interchange import staging
from patientagentbench.interchange.importer import ImportFormatError, import_traces, sha256_of
from patientagentbench.models import Run
from tests.patientagentbench.interchange.inspect_logs import make_log

pytestmark = pytest.mark.django_db
MB = 1024 * 1024


@pytest.fixture(scope="module")
def inspect_log(tmp_path_factory):
    return make_log(tmp_path_factory.mktemp("inspect"), epochs=1)


def padded(log: Path, out: Path, pad_bytes: int) -> Path:
    """The same real log, each sample carrying `pad_bytes` of metadata: valid, and larger
    unpacked than any bound the test sets (deflated, it stays a few KB)."""
    import inspect_ai.log  # noqa: F401 - teaches zipfile the zstandard Inspect writes with

    with zipfile.ZipFile(log) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in source.namelist():
            data = source.read(name)
            if name.startswith("samples/"):
                sample = json.loads(data)
                sample["metadata"] = {**(sample.get("metadata") or {}), "pad": " " * pad_bytes}
                data = json.dumps(sample).encode()
            dst.writestr(name, data)
    return out


def lying(log: Path, declared: int) -> Path:
    """The log with its first sample's directory entry and local header declaring `declared`
    bytes, while the sample still unpacks to all it holds."""
    raw = bytearray(log.read_bytes())
    name = next(n for n in zipfile.ZipFile(log).namelist() if n.startswith("samples/"))
    local = raw.index(name.encode()) - 30  # the name follows its 30-byte local header
    central = raw.index(name.encode(), raw.index(b"PK\x01\x02")) - 46  # and 46-byte entry
    struct.pack_into("<I", raw, local + 22, declared)
    struct.pack_into("<I", raw, central + 24, declared)
    log.write_bytes(bytes(raw))
    return log


def test_a_log_within_the_bounds_imports(inspect_log, tmp_path):
    log = padded(inspect_log, tmp_path / "padded.eval", 2 * MB)
    assert import_traces(log).traces == 2


def test_a_log_unpacking_past_the_total_bound_is_refused_unread(inspect_log, tmp_path, settings):
    settings.IMPORT_MAX_UNPACKED_MB = 3  # two samples of 2 MB each: each fits, both do not
    log = padded(inspect_log, tmp_path / "bomb.eval", 2 * MB)
    assert log.stat().st_size < MB / 10
    with pytest.raises(ImportFormatError) as refused:
        import_traces(log)
    message = str(refused.value)
    assert "refused unread" in message and "over the 3 MB" in message
    assert "PAB_IMPORT_MAX_UNPACKED_MB" in message and "\n" not in message
    assert not Run.objects.exists()


def test_a_member_past_the_member_bound_is_refused_naming_it(inspect_log, tmp_path, settings):
    settings.IMPORT_MAX_MEMBER_MB = 1
    log = padded(inspect_log, tmp_path / "bomb.eval", 2 * MB)
    with pytest.raises(ImportFormatError, match=r"member 'samples/.*over the 1 MB.*MEMBER_MB"):
        import_traces(log)
    assert not Run.objects.exists()


def test_the_command_line_is_held_to_the_same_bounds(inspect_log, tmp_path, settings):
    settings.IMPORT_MAX_UNPACKED_MB = 3
    log = padded(inspect_log, tmp_path / "bomb.eval", 2 * MB)
    with pytest.raises(CommandError, match="PAB_IMPORT_MAX_UNPACKED_MB.*Nothing was imported"):
        call_command("import_traces", str(log))
    assert not Run.objects.exists()


def test_the_web_import_refuses_it_and_keeps_nothing(
    inspect_log, tmp_path, settings, client, researcher, monkeypatch
):
    """The upload is staged unread; the job checking it refuses it and discards it."""
    from patientagentbench.interchange import import_jobs
    from patientagentbench.models import ImportJob

    settings.VAR_DIR, settings.IMPORT_MAX_UNPACKED_MB = tmp_path, 3
    raw = padded(inspect_log, tmp_path / "bomb.eval", 2 * MB).read_bytes()
    client.force_login(researcher)
    monkeypatch.setattr(import_jobs.import_job, "delay", lambda job_id: None)
    response = client.post(reverse("import_upload"), {"file": SimpleUploadedFile("bomb.eval", raw)})
    job = ImportJob.objects.get()
    assert response.status_code == 302 and staging.staged(sha256_of(raw)) == raw
    import_jobs.run_import_job(job.pk)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.ERROR and "PAB_IMPORT_MAX_UNPACKED_MB" in job.error
    assert staging.staged(sha256_of(raw)) is None and not Run.objects.exists()


def test_a_member_lying_about_its_size_is_refused_as_it_grows(inspect_log, tmp_path):
    log = lying(padded(inspect_log, tmp_path / "liar.eval", 8 * MB), declared=100)
    with pytest.raises(ImportFormatError, match="unpacks past the 100 bytes its directory"):
        import_traces(log)
    assert not Run.objects.exists()


def test_a_zip_with_more_members_than_a_run_has_traces_is_refused(tmp_path):
    from patientagentbench.interchange.importer import ZIP_MEMBERS_BESIDE_SAMPLES
    from patientagentbench.runs.limits import MAX_JOBS

    most = MAX_JOBS + ZIP_MEMBERS_BESIDE_SAMPLES
    path = tmp_path / "many.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for index in range(most + 1):
            archive.writestr(f"s/{index}", b"")
    with pytest.raises(ImportFormatError, match=f"more than {most:,} members"):
        import_traces(path)
