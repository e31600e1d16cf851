"""Researcher pages for case sets: the sets, their cases, and every trace of a case."""

import json
from collections import defaultdict

from django.contrib import messages
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render

from patientagentbench.models import CaseSetJob, Suite, Task, Trace
from patientagentbench.roles import STAFF_ROLES, role_required
from patientagentbench.suites.case_sets import start_generation
from patientagentbench.views.forms import CaseSetForm


@role_required(*STAFF_ROLES)
def case_set_list(request):
    form = CaseSetForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        job = start_generation(**form.cleaned_data, created_by=request.user)
        messages.success(request, f"Generating case set {job.name} in the background.")
        return redirect("case_set_list")
    sets = Suite.objects.filter(kind=Suite.Kind.SCENARIO).annotate(
        n_cases=Count("tasks", distinct=True), n_runs=Count("runs", distinct=True)
    )
    jobs = CaseSetJob.objects.exclude(status=CaseSetJob.Status.DONE)[:20]
    return render(request, "cases/list.html", {"sets": sets, "jobs": jobs, "form": form})


@role_required(*STAFF_ROLES)
def case_set_detail(request, pk):
    suite = get_object_or_404(Suite, pk=pk, kind=Suite.Kind.SCENARIO)
    cases = suite.tasks.only("pk", "task_id", "attributes", "prompt").order_by("task_id")
    return render(
        request,
        "cases/set.html",
        {"suite": suite, "cases": cases, "frozen": suite.runs.exists(), **_counts(cases)},
    )


def _counts(cases) -> dict:
    by_category, by_subtask = defaultdict(int), defaultdict(int)
    for case in cases:
        by_category[case.attributes.get("category", "")] += 1
        by_subtask[case.attributes.get("subtask", "")] += 1
    return {"by_category": dict(sorted(by_category.items())), "n_subtasks": len(by_subtask)}


@role_required(*STAFF_ROLES)
def case_detail(request, pk, task_pk):
    task = get_object_or_404(Task.objects.select_related("suite"), pk=task_pk, suite_id=pk)
    traces = (
        Trace.objects.filter(task=task)
        .select_related("run")
        .only(
            "pk",
            "run_id",
            "model_name",
            "temperature",
            "repetition",
            "status",
            "end_reason",
            "correct",
            "tool_calls",
            "messages",
            "final_response",
        )
        .order_by("model_name", "temperature", "repetition", "run_id")
    )
    columns: dict[tuple, list] = defaultdict(list)
    for trace in traces:
        columns[(trace.model_name, trace.temperature)].append(_summary(trace))
    case = task.case or {}
    return render(
        request,
        "cases/case.html",
        {
            "task": task,
            "case": case,
            "profile_json": json.dumps(case.get("profile", {}), indent=2),
            "goal_json": json.dumps(case.get("goal", {}), indent=2),
            "columns": sorted(columns.items(), key=lambda item: (item[0][0], item[0][1] or 0)),
        },
    )


def _summary(trace: Trace) -> dict:
    turns = sum(1 for m in trace.messages if m.get("role") == "user")
    return {
        "trace": trace,
        "turns": turns,
        "calls": [c["name"] for c in trace.tool_calls],
        "final": trace.final_response,
    }
