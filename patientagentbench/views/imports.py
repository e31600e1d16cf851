"""Import transcripts from the web (researchers): upload a file in any format `import_traces`
reads, see what the import would create, then confirm. The preview is the import itself,
rolled back; the confirmation claims the staged bytes the preview read and imports them, once:
a second confirmation of the same upload (a double click, two tabs) makes no second run."""

from django import forms
from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from patientagentbench.interchange import staging
from patientagentbench.interchange.importer import (
    FORMAT_NAMES,
    AlreadyImported,
    ImportFormatError,
    import_bytes,
    preview_import,
    sha256_of,
)
from patientagentbench.interchange.schema import RUN_LABEL_MAX, one_line
from patientagentbench.models import Run
from patientagentbench.roles import STAFF_ROLES, role_required


class UploadForm(forms.Form):
    file = forms.FileField(
        label="Transcript file",
        help_text=(
            "An Inspect AI log (.eval or .json), the seed paper's release JSON, "
            "PatientAgentBench conversations.json, or this project's trace JSONL."
        ),
    )
    again = forms.BooleanField(
        label="Import it even if the same file is already a run",
        required=False,
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        limit = settings.IMPORT_MAX_MB
        if upload.size > limit * 1024 * 1024:
            raise forms.ValidationError(
                f"The file is {upload.size / 1024 / 1024:.1f} MB; the web import takes at most "
                f"{limit} MB (PAB_IMPORT_MAX_MB). Larger files: uv run python manage.py "
                "import_traces FILE."
            )
        return upload


class ConfirmForm(forms.Form):
    sha256 = forms.RegexField(regex=r"^[0-9a-f]{64}$", widget=forms.HiddenInput)
    name = forms.CharField(max_length=RUN_LABEL_MAX, widget=forms.HiddenInput)
    again = forms.BooleanField(required=False, widget=forms.HiddenInput)


@role_required(*STAFF_ROLES)
def import_upload(request):
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method != "POST" or not form.is_valid():
        return render(request, "runs/import.html", {"form": form}, status=_status(request))
    upload, again = form.cleaned_data["file"], form.cleaned_data["again"]
    raw = b"".join(upload.chunks())
    try:
        summary = preview_import(raw, upload.name, again=again)
    except ImportFormatError as exc:
        earlier = _earlier_run(raw) if isinstance(exc, AlreadyImported) else None
        return render(
            request,
            "runs/import.html",
            {"form": form, "problem": _problem(upload.name, exc), "earlier": earlier},
            status=400,
        )
    staging.stage(raw, summary.sha256)
    confirm = ConfirmForm(initial={"sha256": summary.sha256, "name": upload.name, "again": again})
    return render(
        request,
        "runs/import.html",
        {
            "form": UploadForm(),
            "summary": summary,
            "format_name": FORMAT_NAMES[summary.kind],
            "file_name": upload.name,
            "confirm": confirm,
        },
    )


@role_required(*STAFF_ROLES)
@require_POST
def import_confirm(request):
    form = ConfirmForm(request.POST)
    if not form.is_valid():
        messages.error(request, "That import form was not complete: upload the file again.")
        return redirect("import_upload")
    digest, name = form.cleaned_data["sha256"], form.cleaned_data["name"]
    raw = staging.claim(digest)  # one confirmation alone gets the bytes; the other is told
    if raw is None:
        return _already_done_or_gone(request, digest)
    try:
        return _import_claimed(request, raw, digest, name, again=form.cleaned_data["again"])
    finally:
        staging.release(digest)


def _import_claimed(request, raw: bytes, digest: str, name: str, *, again: bool):
    if sha256_of(raw) != digest:  # the staged file changed on disk: import nothing
        return _already_done_or_gone(request, digest)
    try:
        summary = import_bytes(raw, name, again=again, created_by=request.user)
    except AlreadyImported:
        # A second click on the same confirmation: the first one made the run.
        return _already_done_or_gone(request, digest)
    except ImportFormatError as exc:  # the database changed since the preview
        messages.error(request, _problem(name, exc))
        return redirect("import_upload")
    messages.success(
        request,
        f"Imported {summary.traces} traces ({summary.errors} errored) in {summary.cells} cells "
        f"from {name}.",
    )
    return redirect("run_detail", pk=summary.run.pk)


def _already_done_or_gone(request, digest: str):
    if staging.being_imported(digest):
        messages.info(
            request,
            "This file is already being imported by another confirmation: its run appears "
            "in the runs list when the import ends. Nothing more was imported.",
        )
        return redirect("run_list")
    run = Run.objects.filter(source_sha256=digest).order_by("-pk").first()
    if run is not None:
        staging.discard(digest)
        messages.info(request, f"This file is already imported: run {run.pk}.")
        return redirect("run_detail", pk=run.pk)
    messages.error(
        request, "The uploaded file is no longer waiting (kept one day): upload it again."
    )
    return redirect("import_upload")


def _earlier_run(raw: bytes) -> Run | None:
    return Run.objects.filter(source_sha256=sha256_of(raw)).order_by("pk").first()


def _problem(name: str, exc: Exception) -> str:
    return one_line(f"{name}: {exc}. Nothing was imported.")


def _status(request) -> int:
    return 400 if request.method == "POST" else 200
