"""Adjudication (adjudicators, researchers and admins): the queue of disputed scores and the
decisions, and an adjudicator's list of studies to adjudicate.

These pages are blinded like a clinician's, on purpose: no model, run or automatic check
appears on them or on the conversation page they link to, so a decision rests on the
conversation and the clinicians' reasons alone; the study page and audit trail they link to
are blinded too where annotation.blind says so. Clinicians appear by pseudonymous code.
Nobody adjudicates an item they are (or were) assigned to as a clinician: the queue leaves
those items out, and deciding or opening one answers 404 (`_not_own`).
Each dispute is the page's `#dispute` partial; deciding swaps just that piece (htmx) or, without
JavaScript, posts and comes back to the same place.
"""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation import adjudication, blind
from annotation.models import Item, Study
from annotation.views.research_forms import DecisionForm
from patientagentbench.roles import ADJUDICATING_ROLES, role_required


@role_required(*ADJUDICATING_ROLES)
def adjudicator_home(request):
    """Where an adjudicator lands: every study that has clinicians' scores, and what is left
    to decide in each (drafts have none)."""
    studies = Study.objects.exclude(status=Study.Status.DRAFT)
    return render(
        request,
        "annotation/research/adjudicator_home.html",
        {
            "studies": [
                (study, _counts(adjudication.queue(study, adjudicator=request.user)))
                for study in studies
            ]
        },
    )


@role_required(*ADJUDICATING_ROLES)
def adjudication_queue(request, pk):
    study = get_object_or_404(Study, pk=pk)
    disputes = adjudication.queue(study, adjudicator=request.user)
    return render(
        request,
        "annotation/research/adjudication.html",
        {"study": study, "items": _by_item(disputes, study), **_counts(disputes)},
    )


def _counts(disputes) -> dict:
    return {
        "undecided": sum(1 for d in disputes if d.decision is None),
        "disputed_items": len({d.item_id for d in disputes}),
    }


def _by_item(disputes, study, bound=None) -> list[tuple[int, list]]:
    """Items with something left to decide first; each item's disputes in rubric order.
    `bound` is a form the researcher just sent with errors, shown in its place."""
    items: dict[int, list] = {}
    for d in disputes:
        form = bound if bound is not None and bound.prefix == _prefix(d) else _form(d, study)
        items.setdefault(d.item_id, []).append((d, form))
    return sorted(items.items(), key=lambda kv: (all(d.decision for d, _ in kv[1]), kv[0]))


def _prefix(dispute) -> str:
    return f"d{dispute.item_id}-{dispute.dimension}"


def _form(dispute, study, data=None) -> DecisionForm:
    scale = adjudication.rubric_of(study).scale
    return DecisionForm(data, prefix=_prefix(dispute), scale=scale)


@role_required(*ADJUDICATING_ROLES)
@require_POST
def adjudicate(request, pk, item_pk, dimension):
    item = get_object_or_404(Item.objects.select_related("study"), pk=item_pk, study_id=pk)
    _not_own(request.user, item.pk)
    dispute = adjudication.dispute_for(item, dimension, adjudicator=request.user)
    if dispute is None:
        messages.error(request, f"Item {item.pk} is no longer disputed on {dimension}.")
        return redirect("research_adjudication", pk=pk)
    form = _form(dispute, item.study, request.POST)
    if form.is_valid():
        adjudication.decide(
            item, dimension, form.decided_score(), form.cleaned_data["reason"], request.user
        )
        if not request.htmx:
            messages.success(request, f"Decided item {item.pk}, {dispute.label}.")
            anchor = f"#dispute-{item.pk}-{dimension}"
            return redirect(reverse("research_adjudication", args=[pk]) + anchor)
        dispute = adjudication.dispute_for(item, dimension, adjudicator=request.user)
        form = _form(dispute, item.study)
    disputes = adjudication.queue(item.study, adjudicator=request.user)
    context = {"study": item.study, **_counts(disputes)}
    if request.htmx:
        # The decided dispute, and the page's count of what is left (out of band).
        context.update(dispute=dispute, form=form, oob=True)
        return render(request, "annotation/research/adjudication.html#dispute", context)
    context["items"] = _by_item(disputes, item.study, bound=form)
    return render(request, "annotation/research/adjudication.html", context)


@role_required(*ADJUDICATING_ROLES)
def item_conversation(request, pk):
    """The item as its clinicians saw it: chart, story, conversation; nothing else (the page
    gets the item's header, not its row, so not even the template can reach the trace)."""
    item = get_object_or_404(Item, pk=pk)
    _not_own(request.user, item.pk)
    return render(
        request,
        "annotation/research/conversation.html",
        {"item": blind.header_of(item.pk), "material": adjudication.material_of(item)},
    )


def _not_own(person, item_pk: int) -> None:
    """404 for one of the item's own clinicians: the page would set their score beside the
    others' (by code) and let them settle a dispute they are part of."""
    if adjudication.is_own_item(item_pk, person):
        raise Http404("You are one of this item's clinicians: another adjudicator decides it.")
