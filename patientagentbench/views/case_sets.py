"""Researcher pages for case sets: the sets, their cases, and every trace of a case."""

from collections import defaultdict
from decimal import ROUND_UP, Decimal

from django import forms
from django.contrib import messages
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render

from patientagentbench.cases.chart import (
    attribute_chips,
    goal_view,
    humanize,
    pretty_json,
    profile_chart,
    words,
)
from patientagentbench.models import CaseSetJob, ModelConfig, Suite, Task, Trace
from patientagentbench.roles import ADMIN, STAFF_ROLES, has_role, role_required
from patientagentbench.runs.jobs import broker_away
from patientagentbench.suites.case_sets import CASE_SETS, start_generation
from patientagentbench.views.forms import CaseSetForm

# Writing cases with a model costs money, so only admins may, for a bounded number of cases
# and under a spend limit checked against a worst-case cost before the job exists. The
# offline template writer costs nothing and stays open to researchers.
MODEL_WRITER_MAX_COUNT = 200
# The worst case per case: three attempts (llm_writer's default), each re-sending the prompt
# (about 1,500 tokens) with the earlier replies and their feedback, each reply up to about
# 2,000 tokens. Prices are the writer model's own (USD per million tokens).
WRITER_TOKENS_IN_PER_CASE = 12_000
WRITER_TOKENS_OUT_PER_CASE = 6_000


def writer_cost_bound(model: ModelConfig, count: int) -> Decimal:
    cost = model.cost_of(count * WRITER_TOKENS_IN_PER_CASE, count * WRITER_TOKENS_OUT_PER_CASE)
    return cost.quantize(Decimal("0.01"), rounding=ROUND_UP)


class GenerateForm(CaseSetForm):
    max_spend = forms.DecimalField(
        label="Spend limit (USD)",
        min_value=Decimal("0.01"),
        decimal_places=2,
        required=False,
        help_text=(
            f"Model writers only (at most {MODEL_WRITER_MAX_COUNT} cases): refused when "
            "writing the cases could cost more."
        ),
    )

    def __init__(self, *args, may_use_models: bool, **kwargs):
        super().__init__(*args, **kwargs)
        self.writer_model: ModelConfig | None = None
        if not may_use_models:
            writer = self.fields["writer"]
            writer.choices = [c for c in writer.choices if c[0] == "template"]
            writer.help_text = "Model writers cost money, so only admins start them."
            del self.fields["max_spend"]

    def clean(self):
        data = super().clean()
        writer = data.get("writer")
        if not writer or writer == "template":
            return data
        self.writer_model = ModelConfig.objects.filter(name=writer).first()
        count, limit = data.get("count"), data.get("max_spend")
        if self.writer_model is None:
            self.add_error("writer", f"The model {writer} no longer exists.")
        elif count and count > MODEL_WRITER_MAX_COUNT:
            self.add_error(
                "count", f"A model writer writes at most {MODEL_WRITER_MAX_COUNT} cases per set."
            )
        elif limit is None:
            self.add_error("max_spend", "Set a spend limit to write with a model.")
        elif count and (bound := writer_cost_bound(self.writer_model, count)) > limit:
            self.add_error(
                "max_spend",
                f"Writing {count} cases with {writer} could cost up to ${bound}: raise the "
                "limit or ask for fewer cases.",
            )
        return data


@role_required(*STAFF_ROLES)
def case_set_list(request):
    form = GenerateForm(request.POST or None, may_use_models=has_role(request.user, ADMIN))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        job, queued = start_generation(
            name=data["name"],
            count=data["count"],
            seed=data["seed"],
            writer=data["writer"],
            created_by=request.user,
        )
        if not queued:
            messages.info(
                request,
                f"Case set {job.name} was already asked for with these settings "
                f"({job.get_status_display().lower()}); nothing new was queued.",
            )
            return redirect("case_set_list")
        note = ""
        if form.writer_model is not None:
            bound = writer_cost_bound(form.writer_model, job.count)
            note = f" with {job.writer} (at most about ${bound})"
        messages.success(request, f"Generating case set {job.name}{note} in the background.")
        if job.unsent:
            messages.warning(request, broker_away(CASE_SETS, job))
        return redirect("case_set_list")
    sets = Suite.objects.filter(kind=Suite.Kind.SCENARIO).annotate(
        n_cases=Count("tasks", distinct=True), n_runs=Count("runs", distinct=True)
    )
    unfinished = CaseSetJob.objects.exclude(status=CaseSetJob.Status.DONE)[:20]
    return render(
        request,
        "cases/list.html",
        {"sets": sets, "jobs": unfinished, "form": form, "max_model_count": MODEL_WRITER_MAX_COUNT},
    )


@role_required(*STAFF_ROLES)
def case_set_detail(request, pk):
    # Any suite with cases, imported ones too: their case pages link here.
    suite = get_object_or_404(Suite.objects.exclude(kind=Suite.Kind.TASK), pk=pk)
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
    attributes = task.attributes if isinstance(task.attributes, dict) else {}
    chips = attribute_chips(attributes)
    return render(
        request,
        "cases/case.html",
        {
            "task": task,
            "case": case,
            "chart": profile_chart(case.get("profile"), case.get("today", "")),
            "goal": goal_view(case.get("goal")),
            "chips": [chip for chip in chips if chip.group != "traits"],
            "trait_chips": [chip for chip in chips if chip.group == "traits"],
            "subtask": humanize(words(attributes.get("subtask") or "")),
            "profile_json": pretty_json(case.get("profile", {})),
            "goal_json": pretty_json(case.get("goal", {})),
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
