"""Judges take calibration rounds (researchers and admins): score a round's reference items with
a jury panel, then record each judge's and the panel verdict's result, the clinician's own
(annotation.judge_calibration). Thin: the module does the work; spending follows the jury's
launch rules (a paid panel needs an admin or an approved limit).
"""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotation import judge_calibration
from annotation.models import Study
from jury import spending
from jury.models import JudgeQualification, Panel
from patientagentbench.roles import ADMIN, STAFF_ROLES, has_role, role_required


@role_required(*STAFF_ROLES)
def round_judges(request, pk):
    round_ = get_object_or_404(Study, pk=pk)  # not a round: the page says so
    panels = Panel.objects.filter(
        imported=False, rubric_name=round_.rubric_name, rubric_version=round_.rubric_version
    )
    rows = []
    for panel in panels:
        try:
            missing = judge_calibration.unanswered(panel, round_)
        except judge_calibration.CalibrationError as exc:
            missing, problem = None, str(exc)
        else:
            problem = ""
        rows.append({"panel": panel, "missing": missing, "problem": problem})
    return render(
        request,
        "annotation/research/round_judges.html",
        {
            "round": round_,
            "rows": rows,
            "records": JudgeQualification.objects.filter(round=round_).select_related(
                "panel", "judge"
            ),
            "n_items": len(judge_calibration.reference_items(round_)),
        },
    )


@role_required(*STAFF_ROLES)
@require_POST
def round_judges_score(request, pk, panel_pk):
    round_ = get_object_or_404(Study, pk=pk)  # not a round: the page says so
    panel = get_object_or_404(Panel, pk=panel_pk, imported=False)
    is_admin = has_role(request.user, ADMIN)
    limit = None if is_admin else panel.approved_spend_limit
    refusal = spending.launch_refusal(is_admin=is_admin, panel=panel, spend_limit=limit)
    if refusal:
        messages.error(request, refusal)
        return redirect("research_round_judges", pk=pk)
    try:
        scorings = judge_calibration.launch(
            panel, round_, created_by=request.user, spend_limit=limit
        )
    except judge_calibration.CalibrationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            f"Panel {panel.name} is scoring the round's reference items "
            f"({len(scorings)} scoring{'s' if len(scorings) != 1 else ''}).",
        )
    return redirect("research_round_judges", pk=pk)


@role_required(*STAFF_ROLES)
@require_POST
def round_judges_record(request, pk, panel_pk):
    round_ = get_object_or_404(Study, pk=pk)  # not a round: the page says so
    panel = get_object_or_404(Panel, pk=panel_pk, imported=False)
    try:
        records = judge_calibration.record(panel, round_, by=request.user)
    except judge_calibration.CalibrationError as exc:
        messages.error(request, str(exc))
    else:
        passed = sum(r.passed for r in records)
        messages.success(
            request, f"Recorded {len(records)} results for {panel.name}: {passed} passed."
        )
    return redirect("research_round_judges", pk=pk)
