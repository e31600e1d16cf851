"""The web import (issue 23, Must 3): a researcher uploads a file in any format import_traces
reads, sees what would be created with nothing written, confirms once, and lands on the run;
bad input is one line with nothing written, and a second confirmation imports nothing more."""

import json
import os
import stat
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from patientagentbench.interchange import staging
from patientagentbench.interchange.importer import sha256_of
from patientagentbench.models import Run, Suite, Task, Trace
from tests.patientagentbench.interchange.test_import_validation import CONVERSATIONS, RELEASE, jsonl

pytestmark = pytest.mark.django_db


def counts() -> tuple[int, ...]:
    return tuple(m.objects.count() for m in (Run, Suite, Task, Trace))


def upload(client, name: str, raw: bytes, **fields):
    return client.post(reverse("import_upload"), {"file": SimpleUploadedFile(name, raw), **fields})


def confirm(client, raw: bytes, name: str, again: bool = False, **options):
    data = {"sha256": sha256_of(raw), "name": name}
    if again:
        data["again"] = "on"
    return client.post(reverse("import_confirm"), data, **options)


@pytest.fixture
def staff(client, researcher, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    client.force_login(researcher)
    return client


TWO_REPETITIONS = jsonl(model="zephyr-quokka-99b") + jsonl(model="zephyr-quokka-99b", repetition=1)


def test_the_preview_says_what_will_be_created_and_writes_nothing(staff):
    before = counts()
    response = upload(staff, "traces.jsonl", TWO_REPETITIONS)
    assert response.status_code == 200
    preview = response.context["summary"]
    assert (preview.traces, preview.cells, preview.run.repetitions) == (2, 1, 2)
    assert preview.models == ["zephyr-quokka-99b"] and preview.new_suite
    assert preview.suite.name == "hostile-bench" and preview.new_tasks == 1
    text = response.content.decode()
    assert "trace JSONL" in text and "zephyr-quokka-99b" in text and "Import 2 traces" in text
    assert counts() == before
    assert staging.staged(sha256_of(TWO_REPETITIONS)) == TWO_REPETITIONS


def test_confirming_imports_the_previewed_bytes_once(staff, researcher):
    upload(staff, "traces.jsonl", TWO_REPETITIONS)
    response = confirm(staff, TWO_REPETITIONS, "traces.jsonl")
    run = Run.objects.get()
    assert response.status_code == 302 and response.url == reverse("run_detail", args=[run.pk])
    assert (run.label, run.created_by, run.traces.count()) == ("traces.jsonl", researcher, 2)
    assert staging.staged(sha256_of(TWO_REPETITIONS)) is None
    page = staff.get(response.url)
    assert "Imported 2 traces (0 errored) in 1 cells from traces.jsonl." in page.content.decode()

    again = confirm(staff, TWO_REPETITIONS, "traces.jsonl")  # a double click
    assert again.url == reverse("run_detail", args=[run.pk]) and Run.objects.count() == 1
    assert "already imported: run" in staff.get(again.url).content.decode()


def test_a_bad_file_is_one_line_and_nothing_is_written_or_kept(staff):
    before = counts()
    bad = jsonl(model="m" * 300)
    response = upload(staff, "bad.jsonl", bad)
    assert response.status_code == 400
    problem = response.context["problem"]
    assert problem.startswith("bad.jsonl: line 1, field 'model'") and "\n" not in problem
    assert problem.endswith("Nothing was imported.")
    assert counts() == before and staging.staged(sha256_of(bad)) is None


def test_a_file_already_imported_links_the_earlier_run_unless_asked_again(staff):
    upload(staff, "traces.jsonl", TWO_REPETITIONS)
    confirm(staff, TWO_REPETITIONS, "traces.jsonl")
    first = Run.objects.get()
    response = upload(staff, "renamed.jsonl", TWO_REPETITIONS)
    assert response.status_code == 400 and response.context["earlier"] == first
    assert reverse("run_detail", args=[first.pk]) in response.content.decode()

    response = upload(staff, "renamed.jsonl", TWO_REPETITIONS, again="on")
    assert response.status_code == 200
    confirm(staff, TWO_REPETITIONS, "renamed.jsonl", again=True)
    assert Run.objects.count() == 2


@pytest.mark.parametrize(
    ("name", "raw", "words"),
    [
        ("release.json", json.dumps(RELEASE).encode(), "seed paper's release"),
        ("conversations.json", json.dumps(CONVERSATIONS).encode(), "LangChain"),
    ],
)
def test_every_command_line_format_imports_from_the_web(staff, office_suite, name, raw, words):
    response = upload(staff, name, raw)
    assert response.status_code == 200, response.context.get("problem")
    assert words in response.context["format_name"]
    traces = response.context["summary"].traces
    confirm(staff, raw, name)
    assert Run.objects.get().traces.count() == traces > 0


def test_an_inspect_log_imports_from_the_web(staff, tmp_path):
    from tests.patientagentbench.interchange.inspect_logs import make_log

    log: Path = make_log(tmp_path / "inspect")
    raw = log.read_bytes()
    response = upload(staff, log.name, raw)
    assert response.status_code == 200, response.context.get("problem")
    assert response.context["format_name"] == "an Inspect AI log"
    confirm(staff, raw, log.name)
    assert Run.objects.get().traces.count() == response.context["summary"].traces == 6


def test_a_file_over_the_limit_is_refused_before_reading(staff, settings):
    settings.IMPORT_MAX_MB = 0
    response = upload(staff, "traces.jsonl", TWO_REPETITIONS)
    assert response.status_code == 400
    assert "PAB_IMPORT_MAX_MB" in response.content.decode() and Run.objects.count() == 0


def test_a_confirmation_for_nothing_staged_or_a_forged_digest_imports_nothing(staff):
    response = confirm(staff, TWO_REPETITIONS, "traces.jsonl")  # never uploaded
    assert response.url == reverse("import_upload") and Run.objects.count() == 0
    forged = staff.post(reverse("import_confirm"), {"sha256": "../../etc/passwd", "name": "x"})
    assert forged.url == reverse("import_upload") and Run.objects.count() == 0


def test_only_researchers_and_admins_import(client, clinician, outsider):
    for person in (clinician, outsider):
        client.force_login(person)
        assert client.get(reverse("import_upload")).status_code == 403
        assert upload(client, "t.jsonl", TWO_REPETITIONS).status_code == 403
    assert Run.objects.count() == 0


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
    assert not list(folder.glob(f"{sha256_of(TWO_REPETITIONS)}*.partial"))


def test_two_confirmations_of_one_upload_with_import_again_make_one_run(staff, monkeypatch):
    """Issue 34, finding 5: two confirms at once, each with "import again", both imported the
    staged file. The second one here arrives while the first is importing."""
    from patientagentbench.views import imports

    upload(staff, "traces.jsonl", TWO_REPETITIONS)
    confirm(staff, TWO_REPETITIONS, "traces.jsonl")  # the file is a run already: again is needed
    upload(staff, "traces.jsonl", TWO_REPETITIONS, again="on")
    real_import, calls, second = imports.import_bytes, [], []

    def import_while_another_confirms(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:  # the first import: the second confirmation comes now
            answer = confirm(staff, TWO_REPETITIONS, "traces.jsonl", again=True, follow=True)
            second.append(answer)
        return real_import(*args, **kwargs)

    monkeypatch.setattr(imports, "import_bytes", import_while_another_confirms)
    first = confirm(staff, TWO_REPETITIONS, "traces.jsonl", again=True)
    assert Run.objects.count() == 2  # the earlier import and this one: no third
    newest = Run.objects.order_by("-pk").first()
    assert first.url == reverse("run_detail", args=[newest.pk])
    assert second[0].redirect_chain == [(reverse("run_list"), 302)]
    assert "already being imported by another confirmation" in second[0].content.decode()
    assert staging.staged(sha256_of(TWO_REPETITIONS)) is None
    assert not staging.being_imported(sha256_of(TWO_REPETITIONS))  # the claim was dropped
