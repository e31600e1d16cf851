"""Launching runs (admins) and reading runs and traces (researchers and admins)."""

from collections import Counter
from dataclasses import replace
from datetime import timedelta

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseStopPolling

from patientagentbench.analysis.faults import agent_echoes
from patientagentbench.conversation import describe_end
from patientagentbench.models import ModelConfig, Run, Trace
from patientagentbench.results.references import monitor, set_references
from patientagentbench.roles import ADMIN, STAFF_ROLES, role_required
from patientagentbench.runs import jobs
from patientagentbench.runs.estimates import estimate
from patientagentbench.runs.execution import TRACES, lost_traces, progress
from patientagentbench.runs.launch import cancel_run, launch_run, resume_run
from patientagentbench.runs.side_effects import effect_cards, state_sections
from patientagentbench.runs.workers import worker_alive
from patientagentbench.transcripts import pretty, transcript_of
from patientagentbench.views.forms import (
    LaunchForm,
    RunFilter,
    default_suite,
    ids_in,
    parse_temperatures,
    suite_from,
)

# --- launching (admin) -------------------------------------------------------------------


@role_required(ADMIN)
def run_launch(request):
    if request.method == "POST":
        form = LaunchForm(request.POST)
    else:
        form = LaunchForm(suite=suite_from(request.GET.get("suite")))
        if request.htmx and request.htmx.target == "tasks-field":
            # The suite changed: offer that suite's tasks.
            return render(request, "runs/launch.html#tasks", {"form": form})
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
            call_limit=data["call_limit"],
            created_by=request.user,
        )
        messages.success(request, f"Launched run {run.pk}.")
        if run.unsent:
            messages.warning(request, jobs.broker_away(TRACES, run))
        return redirect("run_detail", pk=run.pk)
    return render(request, "runs/launch.html", {"form": form, "preview": _preview(request)})


@role_required(ADMIN)
def run_preview(request):
    return render(request, "runs/launch.html#preview", {"preview": _preview(request)})


def _preview(request) -> dict | None:
    """Jobs and cost of what the form holds so far. Half-typed values never fail: a suite
    that is not a launchable one's id means the default suite, tasks and models that are not
    ids or not the suite's are left out, and bad runs or temperatures say what to fix."""
    source = request.POST if request.method == "POST" else request.GET
    suite = suite_from(source.get("suite")) or default_suite()
    if suite is None:
        return None
    task_ids = ids_in(source.getlist("tasks"))
    chosen = suite.tasks.filter(pk__in=task_ids).count() if task_ids else 0
    n_tasks = chosen or suite.tasks.count()
    models = ModelConfig.objects.enabled().filter(pk__in=ids_in(source.getlist("models")))
    repetitions = _whole_number(source.get("repetitions"), default=5)
    if repetitions is None or not 1 <= repetitions <= REPETITIONS_MAX:
        return {"error": f"Runs (N) is a whole number from 1 to {REPETITIONS_MAX}."}
    try:
        temperatures = len(parse_temperatures(source.get("temperatures") or "1.0"))
    except forms.ValidationError as exc:
        return {"error": " ".join(exc.messages)}
    return estimate(n_tasks, models, temperatures, repetitions)


REPETITIONS_MAX = LaunchForm.base_fields["repetitions"].max_value


def _whole_number(text, default: int) -> int | None:
    text = str(text or "").strip()
    if not text:
        return default
    return int(text) if text.isdecimal() and len(text) < 10 else None


# --- runs and traces (researchers and admins) ----------------------------------------------

RUNS_PER_PAGE = 50


@role_required(*STAFF_ROLES)
def run_list(request):
    filters = RunFilter(request.GET)
    runs = filters.apply(
        Run.objects.select_related("suite")
        .annotate(
            n_traces=Count("traces"),
            n_done=Count("traces", filter=Q(traces__status=Trace.Status.DONE)),
            n_errors=Count("traces", filter=Q(traces__status=Trace.Status.ERROR)),
            n_cancelled=Count("traces", filter=Q(traces__status=Trace.Status.CANCELLED)),
        )
        .order_by("-created_at", "-pk")
    )
    page = Paginator(runs, RUNS_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "runs/list.html",
        {
            "runs": page.object_list,
            "page": page,
            "filters": filters,
            "query": filters.query(),
            "worker_alive": worker_alive(),
        },
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
            "finished_at",
        )
    )
    return {
        "run": run,
        "progress": progress(run.pk),
        # An ended run has nothing running, whatever ended a moment ago.
        "running_lately": running_lately(traces, timezone.now()) if run.is_active else 0,
        "running_window": RUNNING_WINDOW_S,
        "grid": _cell_grid(traces),
        "endings": _endings(traces),
        "worker_alive": worker_alive(),
        # Traces held by workers that stopped reporting: Resume takes them back at once.
        "lost": lost_traces(run.pk) if run.is_active else 0,
        # Each finished trace against its cell's reference, recomputed on every poll.
        "monitor": monitor(run),
    }


# A simulated conversation takes 15–60 ms and the page polls each second, so the traces
# running at the instant of a poll were nearly always none: measured on the demo's setup
# (SQLite, filesystem broker, 4 threads), 13 of 275 samples of a live 114-trace run saw any.
# "Running" therefore counts the traces running now or within the last few seconds.
RUNNING_WINDOW_S = 5
ENDED_STATUSES = (Trace.Status.DONE, Trace.Status.ERROR)


def running_lately(traces, now) -> int:
    """Traces running now, or that ended within RUNNING_WINDOW_S of `now` (so were running
    then): what a person polling once a second means by "running"."""
    since = now - timedelta(seconds=RUNNING_WINDOW_S)
    return sum(
        1
        for t in traces
        if t.status == Trace.Status.RUNNING
        or (t.status in ENDED_STATUSES and t.finished_at is not None and t.finished_at >= since)
    )


def _endings(traces) -> list[dict]:
    """How many conversations ended which way, most common first."""
    counts = Counter(t.end_reason for t in traces if t.end_reason)
    endings = []
    for reason, count in counts.most_common():
        label, limit = describe_end(reason)
        endings.append({"label": label, "limit": limit, "count": count})
    return endings


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
    """Also on a running run: traces held by workers that stopped reporting are queued again
    (the workers do it themselves within a minute; this is at once)."""
    requeued = resume_run(get_object_or_404(Run, pk=pk).pk)
    messages.success(request, f"Run {pk}: {requeued} jobs queued again.")
    if not worker_alive():
        messages.warning(request, "No worker is reporting; the jobs wait until one runs.")
    return redirect("run_detail", pk=pk)


@role_required(*STAFF_ROLES)
@require_POST
def run_set_reference(request, pk):
    """This run's repetitions become the reference of each of its cells (replacing any)."""
    run = get_object_or_404(Run, pk=pk)
    if run.is_active:
        messages.error(
            request, "Set a reference once the run has finished: every repetition counts."
        )
        return redirect("run_detail", pk=pk)
    outcome = set_references(run, actor=request.user)
    skipped = len(outcome["skipped"])
    messages.success(
        request,
        f"Run {pk} is the reference of {outcome['set']} cell{'s' if outcome['set'] != 1 else ''}"
        + (f"; {skipped} skipped with fewer than 2 finished repetitions." if skipped else "."),
    )
    return redirect("run_detail", pk=pk)


TURNS_PER_PAGE = 200  # turns of a conversation per trace page


@role_required(*STAFF_ROLES)
def trace_detail(request, pk):
    trace = get_object_or_404(
        Trace.objects.select_related("run", "task", "task__suite", "model"), pk=pk
    )
    whole = transcript_of(trace.messages, user_label="Patient" if trace.task.case else "User")
    # A runaway conversation (200,000 messages) would be a page of tens of megabytes: long
    # threads are shown a page of turns at a time.
    turns = Paginator(whole.turns, TURNS_PER_PAGE).get_page(request.GET.get("turns"))
    return render(
        request,
        "runs/trace.html",
        {
            "trace": trace,
            "transcript": replace(whole, turns=tuple(turns.object_list)),
            "turn_page": turns,
            "effect_cards": effect_cards(trace.side_effects),
            "state_sections": state_sections(trace.final_state),
            "final_state_pretty": pretty(trace.final_state),
            "faults": _faults(whole.turns),
        },
    )


FAULTS_SHOWN = 20  # a runaway echoing thread lists its first faults and counts the rest


def _faults(turns) -> dict:
    """What went wrong in the talk (`analysis.faults`), each with a link to its turn."""
    found = [
        {
            "flag": "agent_echo",
            "detail": "the agent's reply repeats the patient's last message word for word",
            "anchor": turns[position].anchor,
            "number": turns[position].number,
            "page": position // TURNS_PER_PAGE + 1,
        }
        for position in agent_echoes([(turn.speaker, turn.text) for turn in turns])
    ]
    return {"shown": found[:FAULTS_SHOWN], "more": max(len(found) - FAULTS_SHOWN, 0)}
