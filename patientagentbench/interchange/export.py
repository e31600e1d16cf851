"""Export traces as the project's JSONL, one record per line, which `import_traces` reads.

A record carries what the analysis needs on a database that has never seen the run: its suite
(name, kind and world), the task's frozen case and attributes, and the trace's verdict with
every check, so import -> `consistency_report` and the analysis give the same figures."""

from __future__ import annotations

import json
from pathlib import Path

from patientagentbench.interchange.importer import JSONL_FORMAT
from patientagentbench.models import Trace


def export_record(trace: Trace) -> dict:
    return {
        "format": JSONL_FORMAT,
        "suite": trace.task.suite.name,
        "suite_kind": trace.task.suite.kind,
        "suite_world": trace.task.suite.world,
        "task_id": trace.task.task_id,
        "category": trace.task.category,
        "difficulty": trace.task.difficulty,
        "prompt": trace.task.prompt,
        "model": trace.model_name,
        "temperature": trace.temperature,
        "repetition": trace.repetition,
        "status": trace.status,
        "end_reason": trace.end_reason,
        "error": trace.error,
        "messages": trace.messages,
        "tool_calls": trace.tool_calls,
        "final_response": trace.final_response,
        "side_effects": trace.side_effects,
        "final_state": trace.final_state,
        "tokens_in": trace.tokens_in,
        "tokens_out": trace.tokens_out,
        "latency_ms": trace.latency_ms,
        "cost": str(trace.cost),
        "correct": trace.correct,
        "correctness": trace.correctness,
        "attributes": trace.task.attributes,
        "case": trace.task.case,
        "warnings": trace.warnings,
        "patient_rejected_attempts": trace.patient_rejected_attempts,
    }


def export_traces(out: Path, run_id: int | None = None) -> int:
    traces = Trace.objects.filter(status__in=Trace.ENDED).select_related("task", "task__suite")
    if run_id is not None:
        traces = traces.filter(run_id=run_id)
    count = 0
    with out.open("w", encoding="utf-8") as handle:
        for trace in traces.order_by("run_id", "pk").iterator(chunk_size=500):
            handle.write(json.dumps(export_record(trace), ensure_ascii=False) + "\n")
            count += 1
    return count
