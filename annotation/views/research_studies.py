"""Studies (researchers and admins): the list, the setup form with the sampler's live preview,
a study's progress, an item's audit trail and the scores' CSV.

Researchers are not blinded, so models and runs appear here; clinicians appear only by their
pseudonymous code. The preview is the setup page's own `#preview` partial, re-rendered by htmx
whenever the form changes.
"""

from django.contrib import messages
from django.db.models import Count, Q
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotation import adjudication, audit, lifecycle
from annotation.export import write_csv
from annotation.models import Assignment, Clinician, Item, Study, Submission
from annotation.studies import (
    StudyError,
    StudySpec,
    create_study,
    names_shown_to_clinicians,
    progress_by_clinician,
    progress_by_item,
)
from annotation.views.research_forms import RoundForm, SampleForm, StudyForm
from patientagentbench.models import Trace
from patientagentbench.roles import STAFF_ROLES, role_required


@role_required(*STAFF_ROLES)
def research_home(request):
    return redirect("research_studies")


@role_required(*STAFF_ROLES)
def study_list(request):
    studies = Study.objects.select_related("created_by").annotate(
        n_items=Count("items", distinct=True),
        n_assigned=Count(
            "items__assignments",
            filter=~Q(items__assignments__status=Assignment.Status.WITHDRAWN),
        ),
        n_done=Count(
            "items__assignments",
            filter=Q(items__assignments__status=Assignment.Status.SUBMITTED),
        ),
    )
    return render(request, "annotation/research/studies.html", {"studies": studies})


@role_required(*STAFF_ROLES)
def study_new(request):
    form = StudyForm(request.POST or None, initial={"n_items": 24})
    if request.method == "POST" and form.is_valid():
        study = _create(request, form)
        if study is not None:
            messages.success(request, f"Created study “{study.name}” with {study.n_items} items.")
            for warning in names_shown_to_clinicians(study):
                messages.warning(request, warning)
            return redirect("research_study", pk=study.pk)
    return render(
        request,
        "annotation/research/study_new.html",
        {"form": form, "preview": preview_of(form if form.is_bound else None)},
    )


def _create(request, form: StudyForm) -> Study | None:
    data = form.cleaned_data
    spec = StudySpec(
        name=data["name"],
        seed=data["seed"],
        overlap=form.overlap(),
        reference_share=data["reference_percent"] / 100,
        require_calibration=data["require_calibration"],
        adjudication_threshold=data["adjudication_threshold"],
        instructions=data["instructions"],
    )
    sample = form.sample()
    trace_ids = [int(key) for key in sample.keys]
    try:
        study = create_study(spec, trace_ids, list(data["clinicians"]), request.user, sample)
    except StudyError as exc:
        form.add_error(None, str(exc))
        return None
    study.n_items = len(trace_ids)
    return study


@role_required(*STAFF_ROLES)
def study_preview(request):
    """The sampler's counts for the form as it stands (htmx, on every change)."""
    kind = request.GET.get("kind", Study.Kind.STUDY)
    form_class = RoundForm if kind == Study.Kind.CALIBRATION else StudyForm
    return render(
        request,
        "annotation/research/study_new.html#preview",
        {"preview": preview_of(form_class(request.GET))},
    )


def preview_of(form: SampleForm | None) -> dict | None:
    """The sample's counts per stratum and model, plus the work it makes for each clinician;
    None before the researcher has entered anything."""
    if form is None:
        return None
    sampling = ("runs", "n_items", "seed", "models", "category", "subtask", "severity", "outcome")
    if any(name in form.errors for name in sampling) or not form.cleaned_data.get("n_items"):
        return {"error": "Enter the number of conversations and a seed to see the sample."}
    preview = form.sample().preview()
    preview["work"] = _work(form, preview["total"])
    asked = form.cleaned_data["n_items"]
    # Fewer match than asked for: say so rather than silently previewing what exists.
    preview["asked"] = asked if preview["total"] < asked else None
    return preview


def _work(form: SampleForm, items: int) -> dict | None:
    chosen = form.cleaned_data.get("clinicians")
    if not chosen or not hasattr(form, "overlap"):
        return None
    overlap = form.overlap()
    short = [
        f"{track}: {need} per item, {sum(track in c.tracks for c in chosen)} chosen"
        for track, need in overlap.items()
        if need > sum(track in c.tracks for c in chosen)
    ]
    reviews = items * sum(overlap.values())
    return {
        "reviews": reviews,
        "clinicians": len(chosen),
        "each": round(reviews / len(chosen)),
        "short": short,
    }


@role_required(*STAFF_ROLES)
def study_detail(request, pk):
    study = get_object_or_404(Study.objects.select_related("created_by"), pk=pk)
    disputes = adjudication.queue(study)
    by_item: dict[int, dict] = {}
    for dispute in disputes:
        entry = by_item.setdefault(dispute.item_id, {"open": 0, "decided": 0})
        entry["decided" if dispute.decision else "open"] += 1
    items = progress_by_item(study)
    for row in items:
        row["disputes"] = by_item.get(row["pk"])
    return render(
        request,
        "annotation/research/study.html",
        {
            "study": study,
            "clinicians": progress_by_clinician(study),
            "items": items,
            "open_disputes": sum(1 for d in disputes if d.decision is None),
            "disputes": len(disputes),
            "reference_gaps": _gap_count(study),
            "has_references": study.is_calibration or any(row["is_reference"] for row in items),
            "checklist": lifecycle.checklist(study) if study.status == Study.Status.DRAFT else [],
            "assigned_range": _assigned_range(items),
            "name_warnings": names_shown_to_clinicians(study),
        },
    )


def _assigned_range(items: list[dict]) -> str:
    """How many clinicians each item really went to (a clinician in both tracks counts once)."""
    counts = sorted({row["assigned"] for row in items})
    if not counts:
        return ""
    clinicians = "clinician" if counts[-1] == 1 else "clinicians"
    if len(counts) == 1:
        return f"{counts[0]} {clinicians}"
    return f"{counts[0]} to {counts[-1]} {clinicians}"


def _gap_count(study: Study) -> int:
    return sum(1 for gaps in adjudication.reference_gaps(study).values() if gaps)


@role_required(*STAFF_ROLES)
@require_POST
def study_status(request, pk):
    """Open a draft (refused, with the checklist's reasons, until it holds), close an open
    study (a round's results are written then), or re-open a closed study."""
    study = get_object_or_404(Study, pk=pk)
    try:
        if study.status == Study.Status.OPEN:
            written = lifecycle.close_study(study, request.user)
            note = f"; results recorded for {written} clinicians" if study.is_calibration else ""
            messages.success(request, f"“{study.name}” is now closed{note}.")
        else:
            lifecycle.open_study(study, request.user)
            messages.success(request, f"“{study.name}” is now open.")
    except lifecycle.LifecycleError as exc:
        messages.error(request, str(exc))
    back = "research_references" if request.POST.get("back") == "references" else "research_study"
    return redirect(back, pk=study.pk)


@role_required(*STAFF_ROLES)
def study_export(request, pk):
    study = get_object_or_404(Study, pk=pk)
    all_versions = request.GET.get("versions") == "all"
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    suffix = "-all-versions" if all_versions else ""
    response["Content-Disposition"] = f'attachment; filename="study-{study.pk}-scores{suffix}.csv"'
    write_csv(study, response, all_versions)
    return response


@role_required(*STAFF_ROLES)
def item_audit(request, pk):
    item = get_object_or_404(Item.objects.select_related("study"), pk=pk)
    events = audit.trail(item)
    # Plain values: the conversation's message log is not needed to name it.
    trace = Trace.objects.values("pk", "run_id", "model_name", "task__task_id").get(
        pk=item.trace_id
    )
    codes = _clinician_codes({e.actor_id for e in events if e.actor_id})
    return render(
        request,
        "annotation/research/audit.html",
        {
            "item": item,
            "trace": trace,
            "events": [(e, codes.get(e.actor_id) or _username(e)) for e in events],
            "submissions": Submission.objects.filter(assignment__item=item)
            .select_related("assignment__clinician")
            .order_by("assignment__clinician__code", "version"),
            "decisions": item.adjudications.select_related("decided_by").order_by("decided_at"),
        },
    )


def _clinician_codes(user_ids: set[int]) -> dict[int, str]:
    """A clinician acting is shown by code, never by their username (their email)."""
    return dict(Clinician.objects.filter(user_id__in=user_ids).values_list("user_id", "code"))


def _username(event) -> str:
    return event.actor.username if event.actor_id else "system"
