"""Launching runs (admins) and reading runs and traces (researchers and admins)."""

from django import forms
from django.contrib import messages
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseStopPolling

from patientagentbench.models import ModelConfig, Run, Suite, Trace
from patientagentbench.roles import ADMIN, STAFF_ROLES, role_required
from patientagentbench.runs.estimates import estimate
from patientagentbench.runs.execution import progress
from patientagentbench.runs.launch import cancel_run, launch_run, resume_run
from patientagentbench.runs.workers import worker_alive
from patientagentbench.transcripts import pretty, transcript_of
from patientagentbench.views.forms import LaunchForm, parse_temperatures

# --- launching (admin) -------------------------------------------------------------------


@role_required(ADMIN)
def run_launch(request):
    form = LaunchForm(request.POST or None, initial={"suite": Suite.objects.first()})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        run = launch_run(
            suite=data["suite"],
            models=list(data["models"]),
            tasks=form.chosen_tasks(),
            repetitions=data["repetitions"],
            temperatures=data["temperatures"],
            max_iterations=data["max_iterations"],
            max_turns=(data["max_turns"] or 10) if data["suite"].has_patients else 1,
            patient_model=data["patient_model"] if data["suite"].has_patients else None,
            spend_limit=data["spend_limit"],
            created_by=request.user,
        )
        messages.success(request, f"Launched run {run.pk}.")
        return redirect("run_detail", pk=run.pk)
    return render(request, "runs/launch.html", {"form": form, "preview": _preview(request)})


@role_required(ADMIN)
def run_preview(request):
    return render(request, "runs/launch.html#preview", {"preview": _preview(request)})


def _preview(request) -> dict | None:
    source = request.POST if request.method == "POST" else request.GET
    suite = Suite.objects.filter(pk=source.get("suite") or 0).first() or Suite.objects.first()
    if suite is None:
        return None
    task_ids = [t for t in source.getlist("tasks") if t.isdigit()]
    n_tasks = len(task_ids) or suite.tasks.count()
    models = ModelConfig.objects.filter(pk__in=[m for m in source.getlist("models") if m.isdigit()])
    try:
        temperatures = len(parse_temperatures(source.get("temperatures", "1.0")))
        repetitions = max(1, int(source.get("repetitions") or 5))
    except (ValueError, forms.ValidationError):
        return {"error": "Enter valid runs and temperatures to see the job count."}
    return estimate(n_tasks, models, temperatures, repetitions)


# --- runs and traces (researchers and admins) ----------------------------------------------


@role_required(*STAFF_ROLES)
def run_list(request):
    runs_qs = Run.objects.select_related("suite").annotate(
        n_traces=Count("traces"),
        n_ended=Count("traces", filter=Q(traces__status__in=Trace.ENDED)),
        n_errors=Count("traces", filter=Q(traces__status=Trace.Status.ERROR)),
    )
    return render(
        request, "runs/list.html", {"runs": runs_qs[:200], "worker_alive": worker_alive()}
    )


@role_required(*STAFF_ROLES)
def run_detail(request, pk):
    run = get_object_or_404(Run.objects.select_related("suite", "created_by"), pk=pk)
    context = _run_context(run)
    if request.htmx:
        response = render(request, "runs/detail.html#live", context)
        if not run.is_active:
            # Swap the final state in, then tell htmx to stop asking.
            response.status_code = HttpResponseStopPolling.status_code
        return response
    return render(request, "runs/detail.html", context)


def _run_context(run: Run) -> dict:
    traces = list(
        run.traces.select_related("task").only(
            "pk",
            "run_id",
            "status",
            "model_name",
            "temperature",
            "repetition",
            "end_reason",
            "task__task_id",
            "correct",
            "error",
            "cost",
        )
    )
    return {
        "run": run,
        "progress": progress(run.pk),
        "grid": _cell_grid(traces),
        "worker_alive": worker_alive(),
    }


def _cell_grid(traces) -> dict:
    """Rows: task; columns: model × temperature; each cell lists its repetitions."""
    columns = sorted({(t.model_name, t.temperature) for t in traces}, key=_column_order)
    rows: dict[str, dict] = {}
    for trace in traces:
        row = rows.setdefault(trace.task.task_id, {c: [] for c in columns})
        row[(trace.model_name, trace.temperature)].append(trace)
    return {
        "columns": columns,
        "rows": [
            (task_id, [sorted(row[c], key=lambda t: t.repetition) for c in columns])
            for task_id, row in sorted(rows.items())
        ],
    }


def _column_order(column):
    name, temperature = column
    return (name, temperature if temperature is not None else -1)


@role_required(ADMIN)
@require_POST
def run_cancel(request, pk):
    if cancel_run(pk):
        messages.success(request, f"Run {pk} cancelled.")
    return redirect("run_detail", pk=pk)


@role_required(ADMIN)
@require_POST
def run_resume(request, pk):
    requeued = resume_run(pk)
    messages.success(request, f"Run {pk}: {requeued} jobs queued again.")
    return redirect("run_detail", pk=pk)


@role_required(*STAFF_ROLES)
def trace_detail(request, pk):
    trace = get_object_or_404(
        Trace.objects.select_related("run", "task", "task__suite", "model"), pk=pk
    )
    return render(
        request,
        "runs/trace.html",
        {
            "trace": trace,
            "transcript": transcript_of(
                trace.messages, user_label="Patient" if trace.task.case else "User"
            ),
            "side_effects_pretty": [pretty(effect) for effect in trace.side_effects],
            "final_state_pretty": pretty(trace.final_state),
        },
    )
