"""Studies (researchers and admins): the list, the setup form with the sampler's live preview,
a study's progress, an item's audit trail and the scores' CSV.

Researchers are not blinded, so models and runs appear here, except on the pages the
adjudication queue links to (a study's page, an item's audit trail) when the study is marked
"blind adjudication" or the viewer is an adjudicator (annotation.blind). Clinicians appear
only by their pseudonymous code. The preview is the setup page's own `#preview` partial,
re-rendered by htmx whenever the form changes.
"""

from django.contrib import messages
from django.db.models import Count, Q
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.views.decorators.http import require_POST

from annotation import adjudication, blind, guide, lifecycle
from annotation.export import write_csv
from annotation.models import Assignment, Study
from annotation.people import names_by_code
from annotation.pure import audit_wording
from annotation.studies import (
    StudyError,
    names_shown_to_clinicians,
    pool,
    progress_by_clinician,
    progress_by_item,
)
from annotation.views.research_forms import DeviationReviewForm, RoundForm, SampleForm, StudyForm
from patientagentbench.cases.attribute_labels import stratum_label
from patientagentbench.models import Run, Trace
from patientagentbench.results.references import deviating_trace_ids
from patientagentbench.roles import (
    ADJUDICATING_ROLES,
    ADMIN,
    STAFF_ROLES,
    has_role,
    role_required,
)
from ratings.rubric import cached_rubric as load_rubric


@role_required(*ADJUDICATING_ROLES)
def research_home(request):
    if has_role(request.user, *STAFF_ROLES):
        return redirect("research_studies")
    return redirect("research_adjudicator_home")


@role_required(*STAFF_ROLES)
def first_study(request):
    """A first study step by step: what there is, what is missing, where to do it."""
    steps = guide.first_study(is_admin=has_role(request.user, ADMIN))
    current = next((n for n, step in enumerate(steps) if not step.done), None)
    return render(
        request,
        "annotation/research/first_study.html",
        {"steps": steps, "current": current, "minimums": guide.minimums(load_rubric())},
    )


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
    form = StudyForm(request.POST or None, initial=FIRST_STUDY_SAMPLE)
    if request.method == "POST" and form.is_valid():
        study = _create(request, form)
        if study is not None:
            messages.success(
                request,
                f"Created study “{study.name}” with {study.n_items} item{pluralize(study.n_items)}.",
            )
            for warning in names_shown_to_clinicians(study):
                messages.warning(request, warning)
            return redirect("research_study", pk=study.pk)
    return render(
        request,
        "annotation/research/study_new.html",
        # The first visit previews the prefilled sample, as the round form does.
        {
            "form": form,
            "preview": preview_of(form if form.is_bound else StudyForm(FIRST_STUDY_SAMPLE)),
        },
    )


FIRST_STUDY_SAMPLE = {"n_items": 24, "seed": 1, "design": "extremes_first"}


def _create(request, form: StudyForm) -> Study | None:
    try:
        study = form.create(request.user)
    except StudyError as exc:
        form.add_error(None, str(exc))
        return None
    study.n_items = study.items.count()
    return study


@role_required(*STAFF_ROLES)
def deviations_review(request, pk):
    """A run's conversations that left their reference, as a draft study (the run page's
    "send deviating conversations to review"). Only conversations a clinician can review and
    that no calibration round holds are sent; the study is blinded as any other."""
    run = get_object_or_404(Run, pk=pk)
    deviating = deviating_trace_ids(run)
    sendable = sorted(
        pool(Study.Kind.STUDY, run_ids=[run.pk])
        .filter(pk__in=deviating)
        .values_list("pk", flat=True)
    )
    form = DeviationReviewForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            study = form.create(sendable, request.user)
        except StudyError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request,
                f"Created draft study “{study.name}” with {len(sendable)} deviating "
                f"conversation{pluralize(len(sendable))} of run {run.pk}.",
            )
            for warning in names_shown_to_clinicians(study):
                messages.warning(request, warning)
            return redirect("research_study", pk=study.pk)
    return render(
        request,
        "annotation/research/deviations_review.html",
        {"run": run, "form": form, "n_deviating": len(deviating), "sendable": sendable},
    )


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
    rubric = load_rubric()
    for stratum in preview["strata"]:
        label = rubric.label(stratum["dimension"])
        stratum["text"] = stratum_label(stratum["dimension"], stratum["bucket"], label)
    preview["work"] = _work(form, preview["total"])
    if hasattr(form, "left_out"):  # a round: what its clinicians were already taught on
        preview["left_out"] = form.left_out([run.pk for run in form.cleaned_data["runs"]] or None)
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


@role_required(*ADJUDICATING_ROLES)
def study_detail(request, pk):
    """A study's progress. Adjudicators reach it from the queue, so on a blind study (and for
    an adjudicator who is not a researcher, always) it names no model or case per item, and
    only researchers get the study's controls."""
    study = get_object_or_404(Study.objects.select_related("created_by"), pk=pk)
    disputes = adjudication.queue(study, adjudicator=request.user)  # as their queue counts
    rows = blind.item_rows(study, disputes)
    is_blind = blind.is_blind_for(request.user, study)
    if is_blind:
        items = [(row, None) for row in rows]
    else:
        conversations = {row["pk"]: row for row in progress_by_item(study)}
        items = [(row, conversations.get(row.pk)) for row in rows]
    can_manage = has_role(request.user, *STAFF_ROLES)
    clinicians = progress_by_clinician(study)
    if can_manage:  # researchers know their clinicians by name; adjudicators get codes only
        names = names_by_code(row["clinician__code"] for row in clinicians)
        for row in clinicians:
            row["name"] = names.get(row["clinician__code"], "")
    return render(
        request,
        "annotation/research/study.html",
        {
            "study": study,
            "blind": is_blind,
            "can_manage": can_manage,
            "clinicians": clinicians,
            "results": _round_results(study) if can_manage else None,
            "items": items,
            "open_disputes": sum(1 for d in disputes if d.decision is None),
            "disputes": len(disputes),
            "reference_gaps": _gap_count(study) if can_manage else 0,
            "has_references": study.is_calibration or any(row.is_reference for row in rows),
            "checklist": lifecycle.checklist(study)
            if can_manage and study.status == Study.Status.DRAFT
            else [],
            "assigned_range": _assigned_range(rows),
            # The warning names the model: never on a page blinded to it.
            "name_warnings": names_shown_to_clinicians(study)
            if can_manage and not is_blind
            else [],
        },
    )


def _round_results(study: Study) -> dict | None:
    """A closed round's recorded results, for its own page (the report has the detail)."""
    if not (study.is_calibration and study.status == Study.Status.CLOSED):
        return None
    records = list(study.qualifications.select_related("clinician").order_by("clinician__code"))
    names = names_by_code(q.clinician.code for q in records)
    label = adjudication.rubric_of(study).label
    rows = [
        {
            "record": q,
            "name": names.get(q.clinician.code, ""),
            "passed": [label(key) for key, r in q.results.items() if r.get("passed")],
            "missed": [label(key) for key, r in q.results.items() if not r.get("passed")],
        }
        for q in records
    ]
    passed = sum(1 for q in records if q.passed and q.reopened_at is None)
    return {"rows": rows, "passed": passed, "total": len(records)}


def _assigned_range(items: list[blind.ItemRow]) -> str:
    """How many clinicians each item really went to (a clinician in both tracks counts once)."""
    counts = sorted({row.assigned for row in items})
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
    back = "research_references" if request.POST.get("back") == "references" else "research_study"
    try:
        if study.status == Study.Status.OPEN:
            # Closing writes a round's results for good: only once the researcher confirms.
            if request.POST.get("confirm") != "yes":
                return _confirm_close(request, study)
            written = lifecycle.close_study(study, request.user)
            note = (
                f"; results recorded for {written} clinician{pluralize(written)}"
                if study.is_calibration
                else ""
            )
            messages.success(request, f"“{study.name}” is now closed{note}.")
        else:
            lifecycle.open_study(study, request.user)
            messages.success(request, f"“{study.name}” is now open.")
    except lifecycle.LifecycleError as exc:
        messages.error(request, str(exc))
    return redirect(back, pk=study.pk)


def _confirm_close(request, study: Study):
    progress = progress_by_clinician(study)
    return render(
        request,
        "annotation/research/close_confirm.html",
        {
            "study": study,
            "back": request.POST.get("back", ""),
            "clinicians": len(progress),
            "unfinished": sum(1 for row in progress if row["done"] < row["total"]),
        },
    )


@role_required(*STAFF_ROLES)
def study_export(request, pk):
    study = get_object_or_404(Study, pk=pk)
    all_versions = request.GET.get("versions") == "all"
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    suffix = "-all-versions" if all_versions else ""
    response["Content-Disposition"] = f'attachment; filename="study-{study.pk}-scores{suffix}.csv"'
    write_csv(study, response, all_versions)
    return response


@role_required(*ADJUDICATING_ROLES)
def item_audit(request, pk):
    """An item's audit trail. Built from plain values (annotation.blind); the conversation's
    model, case and run are added only where the viewer is not blinded."""
    study = get_object_or_404(Study, items__pk=pk)
    if adjudication.is_own_item(pk, request.user):
        raise Http404("You are one of this item's clinicians: its trail is not yours to read.")
    is_blind = blind.is_blind_for(request.user, study)
    context = {
        "item": blind.header_of(pk),
        "blind": is_blind,
        "can_manage": has_role(request.user, *STAFF_ROLES),
        "events": [(event, _sentence(event, pk)) for event in blind.trail(pk, blind=is_blind)],
        "submissions": blind.submissions(pk),
        "decisions": blind.decisions(pk),
    }
    if not is_blind:
        # Plain values: the conversation's message log is not needed to name it.
        context["trace"] = (
            Trace.objects.filter(review_items__pk=pk)
            .values("pk", "run_id", "model_name", "task__task_id")
            .get()
        )
    return render(request, "annotation/research/audit.html", context)


def _sentence(event, item_pk: int) -> str:
    return audit_wording.sentence(
        event.action, event.detail, event.who, item=item_pk, label=load_rubric().label
    )
