"""Inspect AI logs in and out (pure; needs the `inspect` extra: `uv sync --extra inspect`).

In: an `.eval` log is a zip, held to `ZipBounds` (members, unpacked sizes, sizes that lie)
before Inspect unpacks any of it. A log (`.eval` or `.json`) is then read by Inspect itself (`inspect_ai.log.read_eval_log`),
and each sample × epoch becomes one record of the project's JSONL, checked by the same schema
as every other import (`jsonl.validate_record`), so bounds, NUL and depth guards and
one-line errors are the same; an error names the sample and epoch. The eval's task names the
suite, the sample id the task, the epoch the repetition (epoch 1 is repetition 0), the eval's
model the trace's model. Messages map onto the provider-neutral log (system, user, assistant
with tool calls given neutral ids t1, t2…, tool results with their errors). Inspect's scores
that read as pass or fail (C/I, true/false, 1/0) become automatic checks; every score and the
sample's metadata are kept as attributes, which only researchers see.

Out: the traces of one model become one Inspect log, which `inspect view` opens and
`read_eval_log` reads back; a run with several models writes one log per model.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from patientagentbench.conversation import EndReason, agent_calls
from patientagentbench.interchange.jsonl import (
    JSONL_FORMAT,
    Line,
    Progress,
    no_progress,
    validate_record,
)
from patientagentbench.interchange.schema import FormatError
from patientagentbench.interchange.zip_bounds import ZipBounds, ZipBoundsError, check_zip
from patientagentbench.providers.types import Message

ZIP_MAGIC = b"PK\x03\x04"
NEEDS_EXTRA = (
    "reading or writing Inspect logs needs the inspect extra: `make install` (make demo "
    "installs it too), `uv sync --frozen --extra inspect`, or pip install "
    "'patientagentbench[inspect]'"
)
PASSED, FAILED = ("C", True, 1, 1.0), ("I", False, 0, 0.0)


class InspectFormatError(FormatError):
    """A log Inspect cannot read, or a sample that does not fit; one line."""


def looks_like_inspect(raw: bytes) -> bool:
    """An `.eval` log is a zip; a `.json` log is one object that opens with its version."""
    if raw.startswith(ZIP_MAGIC):
        return True
    head = raw[:256].lstrip()
    return head.startswith(b"{") and b'"version"' in head and b'"eval"' in raw[:65536]


def inspect_lines(raw: bytes, bounds: ZipBounds, progress: Progress = no_progress) -> list[Line]:
    """Every sample × epoch of a log as a validated record, or InspectFormatError; an `.eval`
    log over `bounds` is refused before anything in it is unpacked whole."""
    if raw.startswith(ZIP_MAGIC):
        try:
            check_zip(raw, bounds)
        except ZipBoundsError as exc:
            raise InspectFormatError(f"the Inspect .eval log was refused unread: {exc}") from None
    log = _read(raw)
    samples = log.samples or []
    if not samples:
        raise InspectFormatError("the Inspect log holds no samples")
    lines = []
    for sample in samples:
        lines.append(validate_record(_record(log, sample), _where(sample)))
        progress(len(lines), len(samples))
    return lines


def _read(raw: bytes):
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise InspectFormatError(NEEDS_EXTRA) from None
    suffix = ".eval" if raw.startswith(ZIP_MAGIC) else ".json"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"log{suffix}"
        path.write_bytes(raw)
        try:
            return read_eval_log(str(path))
        except Exception as exc:  # noqa: BLE001 - Inspect's own errors, in one line
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise InspectFormatError(
                f"not an Inspect log Inspect can read ({type(exc).__name__}: {first[:300]})"
            ) from None


def _where(sample) -> str:
    return f"sample {sample.id!s}, epoch {sample.epoch}"


def _record(log, sample) -> dict[str, Any]:
    messages = _messages(sample.messages)
    neutral = [Message.from_dict(m) for m in messages]
    agent_texts = [m["content"] for m in messages if m["role"] == "assistant" and m["content"]]
    usage = list((sample.model_usage or {}).values())
    checks = _checks(sample.scores or {})
    error = sample.error.message if sample.error else ""
    record = {
        "format": JSONL_FORMAT,
        "suite": log.eval.task,
        "task_id": str(sample.id),
        "model": log.eval.model,
        "temperature": log.eval.model_generate_config.temperature,
        "repetition": sample.epoch - 1,
        "status": "error" if error else "done",
        "end_reason": EndReason.ERROR if error else EndReason.COMPLETED,
        "error": error,
        "prompt": next((m["content"] for m in messages if m["role"] == "user"), ""),
        "messages": messages,
        "tool_calls": agent_calls(neutral),
        "final_response": agent_texts[-1] if agent_texts else "",
        "tokens_in": sum(u.input_tokens for u in usage),
        "tokens_out": sum(u.output_tokens for u in usage),
        "latency_ms": (sample.total_time or 0) * 1000,
        "attributes": {
            "source": "inspect",
            "inspect_task": log.eval.task,
            "inspect_scores": {name: _plain(score.value) for name, score in _scores(sample)},
            "inspect_metadata": sample.metadata or {},
        },
    }
    if checks:
        record["correctness"] = {"passed": all(c["passed"] for c in checks), "checks": checks}
        record["correct"] = record["correctness"]["passed"]
    return record


def _scores(sample) -> list:
    return sorted((sample.scores or {}).items())


def _messages(messages: Iterable) -> list[dict[str, Any]]:
    neutral_ids: dict[str, str] = {}
    out = []
    for message in messages:
        if message.role == "assistant":
            calls = []
            for call in message.tool_calls or []:
                neutral_ids[call.id] = f"t{len(neutral_ids) + 1}"
                calls.append(_call(call, neutral_ids[call.id]))
            out.append({"role": "assistant", "content": message.text, "tool_calls": calls})
        elif message.role == "tool":
            failed = message.error is not None
            out.append(
                {
                    "role": "tool",
                    "content": message.error.message if failed else message.text,
                    "tool_call_id": neutral_ids.get(message.tool_call_id or "", ""),
                    "tool_name": message.function or "",
                    "status": "error" if failed else "ok",
                }
            )
        else:
            out.append({"role": message.role, "content": message.text})
    return out


def _call(call, neutral_id: str) -> dict[str, Any]:
    arguments = call.arguments if isinstance(call.arguments, dict) else None
    malformed = arguments is None or bool(getattr(call, "parse_error", None))
    return {
        "id": neutral_id,
        "name": call.function,
        "raw_arguments": json.dumps(call.arguments, ensure_ascii=False),
        "arguments": None if malformed else arguments,
        "provider_id": call.id,
        "malformed": malformed,
    }


def _checks(scores: dict) -> list[dict[str, Any]]:
    checks = []
    for name, score in sorted(scores.items()):
        value = score.value
        if isinstance(value, str | bool | int | float) and value in PASSED + FAILED:
            passed = value in PASSED  # True == 1 == 1.0 in Python, so this covers all three
            checks.append({"name": name, "passed": passed, "detail": score.explanation or ""})
    return checks


def _plain(value: Any) -> Any:
    """A score value as JSON (Inspect allows lists and dicts of them)."""
    return json.loads(json.dumps(value, default=str))


# --- out -------------------------------------------------------------------------------------


def write_inspect_logs(traces: Iterable, folder: Path, task: str) -> list[Path]:
    """One Inspect log per model of `traces` (Trace rows with their task), in `folder`."""
    try:
        from inspect_ai.log import (
            EvalConfig,
            EvalDataset,
            EvalLog,
            EvalSpec,
            EvalStats,
            write_eval_log,
        )
        from inspect_ai.model import ModelUsage
    except ImportError:
        raise InspectFormatError(NEEDS_EXTRA) from None
    by_model: dict[str, list] = {}
    for trace in traces:
        by_model.setdefault(trace.model_name, []).append(trace)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for model, group in sorted(by_model.items()):
        samples = [_sample(trace) for trace in group]
        log = EvalLog(
            eval=EvalSpec(
                created=datetime.now(UTC).isoformat(timespec="seconds"),
                task=task,
                dataset=EvalDataset(name=task, samples=len({s.id for s in samples})),
                model=model,
                config=EvalConfig(epochs=max(s.epoch for s in samples)),
            ),
            status="success",
            # Times and usage fill the viewer's duration and token columns.
            stats=EvalStats(
                started_at=_iso(min(_started(t) for t in group)),
                completed_at=_iso(max(_finished(t) for t in group)),
                model_usage={model: _usage(ModelUsage, group)},
            ),
            samples=samples,
        )
        path = folder / f"{_file_safe(task)}_{_file_safe(model)}.eval"
        write_eval_log(log, str(path))
        written.append(path)
    return written


def _started(trace) -> datetime:
    return trace.started_at or trace.finished_at or trace.run.created_at


def _finished(trace) -> datetime:
    return trace.finished_at or _started(trace)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def _usage(model_usage, traces):
    tokens_in = sum(t.tokens_in for t in traces)
    tokens_out = sum(t.tokens_out for t in traces)
    return model_usage(
        input_tokens=tokens_in, output_tokens=tokens_out, total_tokens=tokens_in + tokens_out
    )


def _sample(trace):
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import Score

    call_ids: dict[str, str] = {}  # our neutral call ids -> the ids the log uses
    messages = [_inspect_message(m, call_ids) for m in trace.messages]
    scores = {}
    if trace.correct is not None:
        scores["correct"] = Score(
            value="C" if trace.correct else "I", answer=trace.final_response or None
        )
    return EvalSample(
        id=trace.task.task_id,
        epoch=trace.repetition + 1,
        input=trace.task.prompt or _first_user_text(trace.messages),
        target="",
        messages=messages,
        scores=scores or None,
        metadata=dict(trace.task.attributes or {}),
        output=ModelOutput.from_content(trace.model_name, trace.final_response or ""),
        model_usage={trace.model_name: _usage(ModelUsage, [trace])},
        total_time=trace.latency_ms / 1000 if trace.latency_ms else None,
    )


def _first_user_text(messages: list[dict]) -> str:
    return next((m.get("content") or "" for m in messages if m["role"] == "user"), "")


def _inspect_message(message: dict, call_ids: dict[str, str]):
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageTool,
        ChatMessageUser,
    )
    from inspect_ai.tool import ToolCall, ToolCallError

    role, content = message["role"], message.get("content") or ""
    if role == "assistant":
        calls = []
        for call in message.get("tool_calls") or []:
            call_ids[call["id"]] = call.get("provider_id") or call["id"]
            calls.append(
                ToolCall(
                    id=call_ids[call["id"]],
                    function=call["name"],
                    arguments=call.get("arguments") or {},
                )
            )
        return ChatMessageAssistant(content=content, tool_calls=calls or None)
    if role == "tool":
        error = message.get("status") == "error"
        return ChatMessageTool(
            content="" if error else content,
            tool_call_id=call_ids.get(message.get("tool_call_id") or "") or None,
            function=message.get("tool_name") or None,
            error=ToolCallError("unknown", content) if error else None,
        )
    if role == "system":
        return ChatMessageSystem(content=content)
    return ChatMessageUser(content=content)


def _file_safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-." else "-" for ch in name)[:80]
