"""Import transcripts from the web (researchers): upload a file in any format `import_traces`
reads, see what the import would create, then confirm. The file is read in the background
(`interchange.import_jobs`), never in the web request: the upload is staged and a job checks
it (the import itself, rolled back), the status page polls its progress and shows what the
import will create, and the confirmation queues the import of the same job, once."""

from django import forms
from django.conf import settings
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseStopPolling

from patientagentbench.interchange import staging
from patientagentbench.interchange.import_jobs import (
    IMPORTS,
    confirm_import,
    discard_staged,
    start_import,
)
from patientagentbench.interchange.importer import AlreadyImported, refuse_second_import
from patientagentbench.interchange.schema import RUN_LABEL_MAX, one_line
from patientagentbench.models import ImportJob, Run
from patientagentbench.roles import STAFF_ROLES, role_required
from patientagentbench.runs.jobs import broker_away
from patientagentbench.runs.workers import worker_alive

RECENT_IMPORTS = 10


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


@role_required(*STAFF_ROLES)
def import_upload(request):
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method != "POST" or not form.is_valid():
        context = {"form": form, "recent": _recent()}
        return render(request, "runs/import.html", context, status=_status(request))
    upload, again = form.cleaned_data["file"], form.cleaned_data["again"]
    digest, size = staging.stage(upload.chunks())  # chunk by chunk: never the whole file here
    try:
        if not again:
            refuse_second_import(digest)
    except AlreadyImported as exc:
        discard_staged(digest)
        earlier = Run.objects.filter(source_sha256=digest).order_by("pk").first()
        problem = one_line(f"{upload.name}: {exc}. Nothing was imported.")
        context = {"form": form, "problem": problem, "earlier": earlier, "recent": _recent()}
        return render(request, "runs/import.html", context, status=400)
    job = start_import(
        sha256=digest,
        file_name=upload.name[:RUN_LABEL_MAX],
        size=size,
        again=again,
        created_by=request.user,
    )
    if job.unsent:
        messages.warning(request, broker_away(IMPORTS, job))
    return redirect("import_status", pk=job.pk)


@role_required(*STAFF_ROLES)
def import_status(request, pk):
    job = get_object_or_404(ImportJob.objects.select_related("run"), pk=pk)
    context = {"job": job, "worker_alive": worker_alive()}
    if request.htmx:
        response = render(request, "runs/import_status.html#live", context)
        if job.status in ImportJob.ENDED:
            # Swap the final state in (the preview, the run, the error), then stop asking.
            response.status_code = HttpResponseStopPolling.status_code
        return response
    return render(request, "runs/import_status.html", context)


@role_required(*STAFF_ROLES)
@require_POST
def import_confirm(request, pk):
    job = get_object_or_404(ImportJob, pk=pk)
    if not confirm_import(job):
        job.refresh_from_db()
        confirmed = job.stage == ImportJob.Stage.IMPORT
        messages.info(
            request,
            "This import was confirmed already: nothing more was queued."
            if confirmed
            else "This file is not checked yet, or was refused: nothing was queued.",
        )
    elif job.unsent:
        messages.warning(request, broker_away(IMPORTS, job))
    return redirect("import_status", pk=job.pk)


def _recent():
    """The latest imports, so a check waiting for its confirmation is found again."""
    return ImportJob.objects.select_related("created_by")[:RECENT_IMPORTS]


def _status(request) -> int:
    return 400 if request.method == "POST" else 200
