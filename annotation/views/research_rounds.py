"""Calibration rounds (researchers and admins): create a round, write its reference scores (or
adopt an earlier round's consensus), and read the round's report.

A clinician passes a dimension when their own exact and adjacent agreement with the reference
reach the round's thresholds and the round's ordinal alpha does too (`calibration`); the
report shows each part so a researcher can see why someone did not pass.
"""

from django import forms
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation import adjudication, lifecycle
from annotation.models import Clinician, Item, Qualification, Study
from annotation.people import names_by_code
from annotation.qualification import report_for
from annotation.studies import StudyError, names_shown_to_clinicians
from annotation.views.research_forms import ReferenceForm, RoundForm, adoption_warnings
from annotation.views.research_studies import preview_of
from patientagentbench.roles import STAFF_ROLES, role_required
from patientagentbench.views.forms import ids_in

FIRST_SAMPLE = {"source": "sample", "n_items": 10, "seed": 1}


@role_required(*STAFF_ROLES)
def round_new(request):
    form = RoundForm(request.POST or None, initial=FIRST_SAMPLE)
    if request.method == "POST" and form.is_valid():
        study = _create(request, form)
        if study is not None:
            return redirect("research_references", pk=study.pk)
    # The first visit previews the sample the prefilled fields ask for (it said nothing while
    # the number box already said 10); a posted form previews what was posted.
    previewed = form if form.is_bound else RoundForm(FIRST_SAMPLE)
    return render(
        request,
        "annotation/research/round_new.html",
        {"form": form, "preview": preview_of(previewed)},
    )


def _create(request, form: RoundForm) -> Study | None:
    try:
        created = form.create(request.user)
    except (StudyError, forms.ValidationError) as exc:
        form.add_error(None, exc.messages if hasattr(exc, "messages") else str(exc))
        return None
    adopted = created.adoption.adopted if created.adoption else 0
    messages.success(
        request,
        f"Created “{created.study.name}”"
        + (f"; {adopted} item{pluralize(adopted)} took the consensus" if adopted else "")
        + ". It is a draft: write the reference scores, then open the round to its clinicians.",
    )
    for level, note in created.notes:
        messages.add_message(request, level, note)
    for warning in names_shown_to_clinicians(created.study):
        messages.warning(request, warning)
    return created.study


@role_required(*STAFF_ROLES)
def references(request, pk):
    """The round's items and which still lack a reference; adopt an earlier consensus."""
    study = get_object_or_404(Study, pk=pk)
    sources = Study.objects.filter(kind=Study.Kind.CALIBRATION).exclude(pk=study.pk)
    if request.method == "POST":
        chosen = ids_in([request.POST.get("source", "")])  # "abc", "1.0": no such round
        source = get_object_or_404(sources, pk=chosen[0] if chosen else 0)
        everyone = request.POST.get("include_unqualified") == "on"
        adoption = adjudication.adopt_consensus(study, source, request.user, everyone)
        messages.success(
            request,
            f"{adoption.adopted} of {adoption.items} item{pluralize(adoption.items)} took the "
            f"consensus of “{source.name}”"
            + (" (every clinician counted)." if everyone else " (qualified clinicians only)."),
        )
        for warning in adoption_warnings(adoption):
            messages.warning(request, warning)
        return redirect("research_references", pk=study.pk)
    gaps = adjudication.reference_gaps(study)
    study.refresh_from_db(fields=["status"])
    return render(
        request,
        "annotation/research/references.html",
        {
            "study": study,
            "items": [(pk, missing) for pk, missing in sorted(gaps.items())],
            "dimensions": len(adjudication.reference_dimensions(study)),
            "sources": [(s, adjudication.consensus_basis(s)) for s in sources],
            "checklist": lifecycle.checklist(study),
        },
    )


@role_required(*STAFF_ROLES)
def item_reference(request, pk):
    """One item's reference: score and rationale per dimension, beside what clinicians see."""
    item = get_object_or_404(Item.objects.select_related("study"), pk=pk)
    wanted = adjudication.reference_dimensions(item.study)
    rubric = adjudication.rubric_of(item.study)
    dimensions = [d for d in rubric.scored if d.key in wanted]
    form = ReferenceForm(
        request.POST or None,
        dimensions=dimensions,
        scale=rubric.scale,
        initial=ReferenceForm.initial_from(item.reference),
    )
    if request.method == "POST" and form.is_valid():
        adjudication.set_reference(item, form.reference(), request.user)
        messages.success(request, f"Saved the reference of item {item.pk}.")
        return redirect(_next_without_reference(item))
    return render(
        request,
        "annotation/research/reference.html",
        {"item": item, "form": form, "material": adjudication.material_of(item)},
    )


def _next_without_reference(item: Item) -> str:
    gaps = adjudication.reference_gaps(item.study)
    later = [pk for pk, missing in sorted(gaps.items()) if missing and pk != item.pk]
    if later:
        return reverse("research_item_reference", args=[later[0]])
    return reverse("research_references", args=[item.study_id])


@role_required(*STAFF_ROLES)
def round_report(request, pk):
    study = get_object_or_404(Study, pk=pk)
    report = report_for(study)
    rubric = adjudication.rubric_of(study)
    dimensions = [d for d in rubric.scored if d.key in report.dimensions]
    tracks = dict(Clinician.objects.filter(code__in=report.clinicians).values_list("code", "track"))
    records = {q.clinician.code: q for q in study.qualifications.select_related("clinician")}
    names = names_by_code(report.clinicians)
    rows = [
        {
            "code": code,
            "name": names.get(code, ""),
            "track": tracks.get(code, ""),
            "results": [results.get(d.key) for d in dimensions],
            "passed": [d.label for d in dimensions if d.key in results and results[d.key].passed],
            "qualified": report.passed(code, _track_dimensions(rubric, tracks.get(code, ""))),
            "record": records.get(code),
        }
        for code, results in report.clinicians.items()
    ]
    return render(
        request,
        "annotation/research/report.html",
        {
            "study": study,
            "report": report,
            "dimensions": dimensions,
            "alphas": [(d, report.dimensions[d.key]) for d in dimensions],
            "rows": rows,
            "gaps": sum(1 for g in adjudication.reference_gaps(study).values() if g),
        },
    )


def _track_dimensions(rubric, track: str) -> list[str]:
    tracks = set(Clinician(track=track).tracks) if track else set()
    return [d.key for d in rubric.scored if d.track in tracks]


@role_required(*STAFF_ROLES)
@require_POST
def qualification_reopen(request, pk):
    """Take a recorded qualification out of use, with the researcher's reason (audited)."""
    qualification = get_object_or_404(Qualification, pk=pk)
    try:
        lifecycle.reopen_qualification(qualification, request.POST.get("reason", ""), request.user)
        messages.success(request, f"Re-opened {qualification.clinician.code}'s qualification.")
    except lifecycle.LifecycleError as exc:
        messages.error(request, str(exc))
    return redirect("research_round_report", pk=qualification.round_id)
