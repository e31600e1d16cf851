"""The jury's pages (researchers and admins only; a clinician gets 403 everywhere here):
panels and judges, launching a scoring from a run, a scoring's live progress, the verdicts,
the leaderboard with its breakdowns, and judge consistency.

Views stay thin: `jury.scoring` launches, cancels and resumes; `jury.verdicts` reads. Live
pieces are named partials of their page's template, re-rendered by htmx.
"""

from __future__ import annotations

from django.contrib import messages
from django.db.models import Count, Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseStopPolling

from jury import spending, timing, verdicts
from jury.forms import ApprovalForm, JudgeForm, LaunchForm, PanelForm, ResumeForm
from jury.models import Judge, JudgeJob, JuryRun, Panel, Verdict
from jury.qualification import standing
from jury.scoring import (
    JUDGE_JOBS,
    JuryError,
    calls_per_job,
    cancel_jury,
    jobs_to_make,
    launch_jury,
    progress,
    resume_jury,
)
from patientagentbench.cases.attribute_labels import attribute_label, value_label
from patientagentbench.models import Run, Trace
from patientagentbench.roles import ADMIN, STAFF_ROLES, has_role, role_required
from patientagentbench.runs import jobs
from patientagentbench.runs.workers import worker_alive
from ratings.rubric import cached_rubric

# --- panels and judges ---------------------------------------------------------------------


@role_required(*STAFF_ROLES)
def jury_home(request):
    panels = Panel.objects.annotate(
        n_judges=Count("judges", distinct=True), n_runs=Count("jury_runs", distinct=True)
    )
    jury_runs = JuryRun.objects.select_related("panel", "run", "run__suite")[:30]
    return render(
        request,
        "jury/home.html",
        {
            "panels": panels,
            "jury_runs": jury_runs,
            "judges": Judge.objects.select_related("model"),
        },
    )


@role_required(*STAFF_ROLES)
def panel_new(request):
    form = PanelForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        panel = form.save()
        messages.success(request, f"Panel {panel.name} created.")
        return redirect("jury_panel", pk=panel.pk)
    return render(request, "jury/panel_new.html", {"form": form})


@role_required(*STAFF_ROLES)
def panel_detail(request, pk):
    panel = get_object_or_404(Panel, pk=pk)
    scored_runs = (
        Run.objects.filter(traces__verdicts__panel=panel)
        .select_related("suite")
        .annotate(n_verdicts=Count("traces__verdicts", filter=Q(traces__verdicts__panel=panel)))
        .order_by("-pk")
    )
    return render(
        request,
        "jury/panel.html",
        {
            "panel": panel,
            "judges": panel.judges.select_related("model"),
            "jury_runs": panel.jury_runs.select_related("run", "run__suite"),
            "scored_runs": scored_runs,
            "paid": spending.is_paid(panel),
            "which_limit": spending.which_limit(panel),
            "unpriced": spending.unpriced_models(panel),
            "approval_form": ApprovalForm(initial={"spend_limit": panel.approved_spend_limit}),
            "standing": standing(panel),
            "qualifications": panel.qualifications.select_related("judge", "round"),
        },
    )


@role_required(ADMIN)
@require_POST
def panel_approve(request, pk):
    """An admin lets researchers launch a paid panel, up to a spend limit per scoring."""
    panel = get_object_or_404(Panel, pk=pk, imported=False)
    form = ApprovalForm(request.POST)
    unpriced = spending.unpriced_models(panel)
    if unpriced and form.is_valid() and form.cleaned_data["spend_limit"] is not None:
        messages.error(
            request,
            f"{panel.name} has a judge on a model without prices ({', '.join(unpriced)}): no "
            "dollar limit can bound it, so researchers cannot be approved for it. Set the "
            "model's prices first; until then only admins launch it, with a call limit.",
        )
    elif not form.is_valid():
        messages.error(request, "The spend limit must be a positive amount in USD.")
    else:
        limit = form.cleaned_data["spend_limit"]
        spending.approve(panel, request.user, limit)
        messages.success(
            request,
            f"Researchers may launch {panel.name} up to ${limit:.2f} per scoring."
            if limit is not None
            else f"Approval of {panel.name} withdrawn: only admins may launch it.",
        )
    return redirect("jury_panel", pk=pk)


@role_required(*STAFF_ROLES)
def judge_edit(request, pk=None):
    judge = get_object_or_404(Judge, pk=pk) if pk else None
    if judge is not None and judge.prompt_version == verdicts.IMPORTED_VERSION:
        raise Http404("Imported judges are history; they cannot be edited.")
    form = JudgeForm(
        request.POST or None, instance=judge, may_use_paid_models=has_role(request.user, ADMIN)
    )
    if request.method == "POST" and form.is_valid():
        saved = form.save()
        messages.success(request, f"Judge {saved.name} saved.")
        return redirect("jury_home")
    return render(request, "jury/judge.html", {"form": form, "judge": judge})


# --- launching and watching a scoring ---------------------------------------------------


@role_required(*STAFF_ROLES)
def launch(request, run_pk):
    run = get_object_or_404(Run.objects.select_related("suite"), pk=run_pk)
    finished = list(run.traces.filter(status=Trace.Status.DONE).values_list("pk", flat=True))
    conversations = len(finished)
    dimensions = len(cached_rubric().scored)
    form = LaunchForm(
        request.POST or None, initial={"panel": _default_panel()}, run=run, finished=finished
    )
    is_admin = has_role(request.user, ADMIN)
    valid = request.method == "POST" and form.is_valid()
    # The estimate counts what this launch would make: the chosen conversations × K.
    chosen = form.trace_ids if valid and form.trace_ids is not None else finished
    repeat = form.cleaned_data["repeat"] if valid else 1
    if valid and ESTIMATE not in request.POST:
        data = form.cleaned_data
        panel, limit, call_limit = data["panel"], data["spend_limit"], data["call_limit"]
        if limit is None and not is_admin:
            limit = panel.approved_spend_limit  # the admin's limit, when the panel is paid
        refusal = spending.launch_refusal(
            is_admin=is_admin, panel=panel, spend_limit=limit, call_limit=call_limit
        )
        try:
            if refusal:
                raise JuryError(refusal)
            jury_run = launch_jury(
                panel=panel,
                run=run,
                repeat=data["repeat"],
                spend_limit=limit,
                call_limit=call_limit,
                created_by=request.user,
                trace_ids=form.trace_ids,
                subset=form.subset,
            )
        except JuryError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Scoring {jury_run.pk} launched.")
            if jury_run.unsent:
                messages.warning(request, jobs.broker_away(JUDGE_JOBS, jury_run))
            return redirect("jury_run", pk=jury_run.pk)
    return render(
        request,
        "jury/launch.html",
        {
            "run": run,
            "form": form,
            "conversations": conversations,
            "estimates": _estimates(chosen, repeat, dimensions, is_admin),
            "estimated_for": _estimated_for(form if valid else None, len(chosen), repeat),
            "dimensions": dimensions,
            "scored_by": Panel.objects.filter(verdicts__trace__run=run).distinct(),
            "worker_alive": worker_alive(),
        },
    )


def _default_panel() -> Panel | None:
    return Panel.objects.filter(imported=False).order_by("-created_at").first()


ESTIMATE = "estimate"  # the submit button that asks for the estimate of a choice, not a launch


def _estimated_for(form: LaunchForm | None, n_conversations: int, repeat: int) -> str:
    """What the estimate counts, in words."""
    which = (
        form.subset
        if form is not None and form.subset
        else f"all {n_conversations} finished conversation{'s' if n_conversations != 1 else ''}"
    )
    return f"{which}, {repeat} repetition{'s' if repeat != 1 else ''}"


def _estimates(trace_ids: list[int], repeat: int, dimensions: int, is_admin: bool) -> list[dict]:
    """For each panel, the calls a launch of these conversations × `repeat` would make (jobs
    an earlier launch holds are not made again), its time and, for a paid panel, its
    worst-case cost and who may launch it: the cost of a choice, seen before making it."""
    rows = []
    conversations = len(trace_ids)
    for panel in Panel.objects.filter(imported=False).prefetch_related("judges__model"):
        paid, unpriced = spending.is_paid(panel), spending.unpriced_models(panel)
        jobs_made = jobs_to_make(panel, trace_ids, repeat)
        estimate = timing.scoring_time(panel, conversations, dimensions, repeat)
        # Time grows linearly with conversations: one estimate (one latency query per
        # judge) serves both figures.
        each = (
            estimate.seconds / conversations
            if estimate.seconds is not None and conversations
            else None
        )
        rows.append(
            {
                "name": panel.name,
                "time": timing.words(estimate.seconds) if estimate.seconds is not None else None,
                "time_each": timing.words(each) if each is not None else None,
                "latencies": estimate.per_judge,
                "unmeasured": estimate.unmeasured,
                "jobs": sum(jobs_made.values()),
                "calls": sum(n * calls_per_job(j, dimensions) for j, n in jobs_made.items()),
                "paid": paid,
                "worst_case": spending.worst_case_cost(jobs_made, dimensions) if paid else None,
                "approved_limit": panel.approved_spend_limit,
                "launchable": is_admin
                or not paid
                or (not unpriced and panel.approved_spend_limit is not None),
                "which_limit": spending.which_limit(panel),
                "unpriced": unpriced,
            }
        )
    return rows


@role_required(*STAFF_ROLES)
def jury_run_detail(request, pk):
    jury_run = get_object_or_404(
        JuryRun.objects.select_related("panel", "run", "run__suite", "created_by"), pk=pk
    )
    context = _live_context(jury_run)
    if request.htmx:
        response = render(request, "jury/jury_run.html#live", context)
        if not jury_run.is_active:
            response.status_code = HttpResponseStopPolling.status_code  # final state, then stop
        return response
    return render(request, "jury/jury_run.html", context)


def _live_context(jury_run: JuryRun) -> dict:
    counts = dict.fromkeys(Verdict.Status.values, 0)
    for status, n in (
        Verdict.objects.filter(job__jury_run=jury_run)
        .values_list("status")
        .annotate(n=Count("pk"))
        .order_by()
    ):
        counts[status] = n
    rubric = verdicts.rubric_of(jury_run.panel)
    return {
        "jury_run": jury_run,
        "progress": progress(jury_run.pk),
        "answers": counts,
        "answers_total": sum(counts.values()),
        "dimensions": len(rubric.scored),
        "job_errors": jury_run.jobs.filter(status=JudgeJob.Status.ERROR)[:5],
        "failed_jobs": jury_run.jobs.filter(status=JudgeJob.Status.ERROR).count(),
        # Only jobs that retried after a timeout (few): every warning, so the count is true.
        "timeout_warnings": [
            warning
            for warnings in jury_run.jobs.exclude(warnings=[]).values_list("warnings", flat=True)
            for warning in warnings
        ],
        "worker_alive": worker_alive(),
        "resume_form": ResumeForm(
            initial={"spend_limit": jury_run.spend_limit, "call_limit": jury_run.call_limit}
        ),
        "which_limit": spending.which_limit(jury_run.panel),
    }


@role_required(*STAFF_ROLES)
@require_POST
def jury_run_cancel(request, pk):
    if cancel_jury(pk):
        messages.success(request, f"Scoring {pk} cancelled.")
    return redirect("jury_run", pk=pk)


@role_required(*STAFF_ROLES)
@require_POST
def jury_run_resume(request, pk):
    jury_run = get_object_or_404(JuryRun.objects.select_related("panel"), pk=pk)
    form = ResumeForm(request.POST)
    valid = form.is_valid()
    new_limit = form.cleaned_data["spend_limit"] if valid else None
    new_calls = form.cleaned_data["call_limit"] if valid else None
    refusal = spending.resume_refusal(
        is_admin=has_role(request.user, ADMIN),
        jury_run=jury_run,
        spend_limit=new_limit,
        call_limit=new_calls,
    )
    if refusal:
        messages.error(request, refusal)
        return redirect("jury_run", pk=pk)
    if new_limit is not None:
        jury_run.spend_limit = new_limit
        jury_run.save(update_fields=["spend_limit"])
    if new_calls is not None:
        jury_run.call_limit = new_calls
        jury_run.save(update_fields=["call_limit"])
    # A running scoring may be resumed: jobs held by workers that stopped reporting go back.
    failed = jury_run.jobs.filter(status=JudgeJob.Status.ERROR).exists()
    if jury_run.status == JuryRun.Status.FINISHED and not failed:
        messages.error(request, f"Scoring {pk} is {jury_run.get_status_display().lower()}.")
        return redirect("jury_run", pk=pk)
    if jury_run.spend_limit is not None and jury_run.spent >= jury_run.spend_limit:
        messages.error(request, "Raise the spend limit first: it is already reached.")
        return redirect("jury_run", pk=pk)
    if jury_run.call_limit is not None and jury_run.calls >= jury_run.call_limit:
        messages.error(request, "Raise the call limit first: it is already reached.")
        return redirect("jury_run", pk=pk)
    requeued = resume_jury(pk)
    messages.success(request, f"Scoring {pk}: {requeued} judge jobs queued again.")
    return redirect("jury_run", pk=pk)


# --- reading verdicts ------------------------------------------------------------------------


def _run_and_panel(run_pk, panel_pk) -> tuple[Run, Panel]:
    return (
        get_object_or_404(Run.objects.select_related("suite"), pk=run_pk),
        get_object_or_404(Panel, pk=panel_pk),
    )


@role_required(*STAFF_ROLES)
def verdict_list(request, run_pk, panel_pk):
    """One row per conversation; with repetitions, one repetition at a time (or all)."""
    run, panel = _run_and_panel(run_pk, panel_pk)
    conversations = verdicts.conversation_verdicts(panel, run=run)
    models = sorted({c.model for c in conversations})
    repetitions = sorted({c.repetition for c in conversations})
    model = request.GET.get("model", "")
    repetition = request.GET.get("repetition", "0" if len(repetitions) > 1 else "all")
    shown = [
        c
        for c in conversations
        if (not model or c.model == model)
        and (repetition == "all" or str(c.repetition) == repetition)
    ]
    dimensions = [(d.key, d.label) for d in verdicts.rubric_of(panel).scored]
    jury_standing = standing(panel)
    return render(
        request,
        "jury/verdicts.html",
        {
            "run": run,
            "panel": panel,
            "rows": [(c, [c.dimension(key) for key, _ in dimensions]) for c in shown],
            "total": len(conversations),
            "models": models,
            "chosen_model": model,
            "repetitions": [str(r) for r in repetitions],
            "chosen_repetition": repetition,
            "dimensions": dimensions,
            "left_out": verdicts.left_out_text(verdicts.left_out_total(shown)),
            "repeated": len(repetitions) > 1,
            "standing": jury_standing,
            "columns": _flagged(dimensions, jury_standing),
        },
    )


@role_required(*STAFF_ROLES)
def verdict_detail(request, run_pk, panel_pk, trace_pk):
    run, panel = _run_and_panel(run_pk, panel_pk)
    trace = get_object_or_404(Trace.objects.select_related("task"), pk=trace_pk, run=run)
    conversations = verdicts.conversation_verdicts(panel, trace_ids=[trace.pk])
    if not conversations:
        raise Http404("This panel has no verdicts on this conversation.")
    return render(
        request,
        "jury/conversation.html",
        {"run": run, "panel": panel, "trace": trace, "conversations": conversations},
    )


@role_required(*STAFF_ROLES)
def leaderboard(request, run_pk, panel_pk):
    run, panel = _run_and_panel(run_pk, panel_pk)
    board = verdicts.run_leaderboard(panel, run)
    by = request.GET.get("by") or (board.attributes[0] if board.attributes else "")
    if by and by not in board.attributes:
        raise Http404("No such case attribute.")
    keys = [key for key, _ in board.dimensions]
    breakdown = verdicts.run_breakdown(panel, run, by) if by else {}
    jury_standing = standing(panel)
    context = {
        "run": run,
        "panel": panel,
        "board": board,
        "table": _table(board.rows, keys),
        "by": by,
        # Keys stay in the query string; a person reads "Anxiety", "Health concern".
        "attributes": [(key, attribute_label(key)) for key in board.attributes],
        "by_label": attribute_label(by) if by else "",
        "breakdown": [
            (value_label(by, value), _table(rows, keys)) for value, rows in breakdown.items()
        ],
        "left_out": verdicts.left_out_text(board.left_out),
        "standing": jury_standing,
        "columns": _flagged(board.dimensions, jury_standing),
    }
    if request.htmx:
        return render(request, "jury/leaderboard.html#breakdown", context)
    return render(request, "jury/leaderboard.html", context)


def _flagged(dimensions, jury_standing) -> list[tuple]:
    """(key, label, validity row, warning) per column: every figure of a dimension whose
    validity is not shown carries the warning beside it."""
    return [(key, label, *jury_standing.validity.of(key)) for key, label in dimensions]


def _table(rows, keys: list[str]) -> list[tuple]:
    """Model rows with their dimension cells in column order (templates cannot index)."""
    return [(row, [row.dimensions.get(key) for key in keys]) for row in rows]


# --- judge consistency -------------------------------------------------------------------------


@role_required(*STAFF_ROLES)
def consistency(request, pk):
    panel = get_object_or_404(Panel, pk=pk)
    sources = verdicts.available_sources()
    choices = {_source_key(s): s for s in sources}
    own = [k for k, s in choices.items() if s.panel.pk == panel.pk]
    before_key = request.GET.get("before") or (own[0] if own else "")
    after_key = request.GET.get("after") or (own[-1] if own else "")
    before, after = choices.get(before_key), choices.get(after_key)
    # Each judge's row over all dimensions first, then its dimensions.
    rows = sorted(
        verdicts.panel_retest(panel), key=lambda r: (r.judge, r.dimension != "all", r.dimension)
    )
    comparison = None
    if before and after and before_key != after_key:
        comparison = verdicts.version_comparison(before, after)
    valid = verdicts.panel_validity(panel, rows)
    return render(
        request,
        "jury/consistency.html",
        {
            "panel": panel,
            "rows": [(row, verdicts.left_out_text(row.n_excluded)) for row in rows],
            "repeated": any(row.n_repetitions >= 2 for row in rows),
            "choices": [(k, s.label) for k, s in choices.items()],
            "before_key": before_key,
            "after_key": after_key,
            "before": before,
            "after": after,
            "comparison": comparison,
            "same_panel": bool(before and after and before.panel.pk == after.panel.pk),
            "validity": valid,
            "standing": standing(panel),
            "separations": [
                (row, valid.warnings.get((row.judge, row.dimension), ""))
                for row in valid.separations
            ],
            "warnings": [
                (row, valid.warnings[(row.judge, row.dimension)])
                for row in valid.separations
                if (row.judge, row.dimension) in valid.warnings
            ],
            "judge_summaries": sorted(valid.summary.items()),
        },
    )


def _source_key(source: verdicts.Source) -> str:
    return f"{source.panel.pk}:{source.rubric_version}:{source.prompt_version}"
