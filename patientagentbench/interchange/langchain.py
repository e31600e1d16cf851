"""PatientAgentBench's conversations.json: LangChain message dumps, read into our message log.

Each record holds `case_id`, `conversation` (messages with `type` human / ai / tool),
`user_profile` (XML text), `scenario` (condition, severity, task type, personality, …).
AI messages carry tool calls either as `tool_calls` ({name, args, id}) or, from Anthropic
models, as `tool_use` content blocks; both may appear for the same call, so ids dedupe them.
"""

from __future__ import annotations

import json

from patientagentbench.cases.schema import SUBTASKS
from patientagentbench.providers.types import Message, ToolCall

END_MARKERS = ("[DROPPED OFF CONVERSATION]", "[END]")


class LangChainFormatError(ValueError):
    pass


def looks_like_patientagentbench(data) -> bool:
    return (
        isinstance(data, list)
        and bool(data)
        and isinstance(data[0], dict)
        and ("conversation" in data[0])
    )


def parse_conversations(data: list) -> list[dict]:
    """Plain per-conversation dicts: case_id, model, messages, calls, final text, attributes."""
    return [_conversation(record, index) for index, record in enumerate(data)]


def _conversation(record, index: int) -> dict:
    where = f"conversation {index}"
    if not isinstance(record, dict):
        raise LangChainFormatError(f"{where}: must be an object")
    case_id = record.get("case_id")
    if not isinstance(case_id, str) or not case_id:
        raise LangChainFormatError(f"{where}, field 'case_id': a non-empty string is required")
    raw_messages = record.get("conversation")
    if not isinstance(raw_messages, list):
        raise LangChainFormatError(f"{where} ({case_id}), field 'conversation': must be a list")
    messages = _messages(raw_messages, f"{where} ({case_id})")
    scenario = record.get("scenario") if isinstance(record.get("scenario"), dict) else {}
    return {
        "case_id": case_id,
        "model": str(record.get("model") or record.get("agent_model") or "unknown-agent"),
        "messages": messages,
        "ended_by_patient": _ended_by_patient(raw_messages),
        "tokens": _tokens(raw_messages),
        "attributes": _attributes(scenario, record),
        "case": {
            "profile_text": record.get("user_profile") or "",
            "story": scenario.get("patient_story", ""),
            "scenario": scenario,
        },
    }


def _messages(raw_messages: list, where: str) -> list[Message]:
    messages: list[Message] = []
    neutral: dict[str, str] = {}  # provider id -> t1, t2, …
    for position, raw in enumerate(raw_messages):
        here = f"{where}, message {position}"
        if not isinstance(raw, dict) or raw.get("type") not in ("human", "ai", "tool"):
            raise LangChainFormatError(f"{here}, field 'type': one of human, ai, tool")
        kind = raw["type"]
        if kind == "human":
            text = _strip_markers(_text(raw.get("content"), here))
            if text:
                messages.append(Message(role="user", content=text))
        elif kind == "ai":
            messages.append(_ai_message(raw, here, neutral))
        else:
            messages.append(_tool_message(raw, here, neutral))
    return messages


def _ai_message(raw: dict, where: str, neutral: dict[str, str]) -> Message:
    calls: list[ToolCall] = []
    seen: set[str] = set()
    blocks = raw.get("content") if isinstance(raw.get("content"), list) else []
    candidates = [
        (c.get("name"), c.get("args"), c.get("id")) for c in raw.get("tool_calls") or []
    ] + [
        (b.get("name"), b.get("input"), b.get("id")) for b in blocks if b.get("type") == "tool_use"
    ]
    for name, args, provider_id in candidates:
        if provider_id in seen:
            continue
        if not isinstance(name, str) or not name:
            raise LangChainFormatError(f"{where}, field 'tool_calls.name': required")
        seen.add(provider_id)
        neutral[provider_id] = f"t{len(neutral) + 1}"
        raw_arguments = args if isinstance(args, str) else json.dumps(args or {})
        calls.append(
            ToolCall.parse(
                id=neutral[provider_id],
                name=name,
                raw_arguments=raw_arguments,
                provider_id=provider_id or "",
            )
        )
    return Message(role="assistant", content=_text(raw.get("content"), where), tool_calls=calls)


def _tool_message(raw: dict, where: str, neutral: dict[str, str]) -> Message:
    provider_id = raw.get("tool_call_id")
    if provider_id not in neutral:
        raise LangChainFormatError(f"{where}, field 'tool_call_id': answers no earlier tool call")
    return Message(
        role="tool",
        content=_text(raw.get("content"), where),
        tool_call_id=neutral[provider_id],
        tool_name=raw.get("name") or "",
        status="error" if raw.get("status") == "error" else "ok",
    )


def _text(content, where: str) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        ).strip()
    raise LangChainFormatError(f"{where}, field 'content': text or a list of content blocks")


def _strip_markers(text: str) -> str:
    for marker in END_MARKERS:
        text = text.replace(marker, "")
    return text.strip()


def _ended_by_patient(raw_messages: list) -> bool:
    last = raw_messages[-1] if raw_messages else {}
    return isinstance(last, dict) and any(m in str(last.get("content")) for m in END_MARKERS)


def _tokens(raw_messages: list) -> tuple[int, int]:
    usage = [m.get("usage_metadata") or {} for m in raw_messages if isinstance(m, dict)]
    return (
        sum(int(u.get("input_tokens") or 0) for u in usage),
        sum(int(u.get("output_tokens") or 0) for u in usage),
    )


def _attributes(scenario: dict, record: dict) -> dict:
    category, subtask = split_task_type(str(scenario.get("task_type", "")))
    return {
        "category": category,
        "subtask": subtask,
        "condition": scenario.get("condition_name", ""),
        "severity": scenario.get("severity_level", ""),
        "care_preference": scenario.get("preferred_care_option", ""),
        "personality": scenario.get("personality") or record.get("personality") or "",
        "complexity": scenario.get("scenario_complexity", ""),
    }


def split_task_type(task_type: str) -> tuple[str, str]:
    """'medication_prescription_renewal' -> ('medication', 'prescription_renewal')."""
    for category in sorted(SUBTASKS, key=len, reverse=True):
        if task_type.startswith(category + "_"):
            return category, task_type[len(category) + 1 :]
    return "", task_type
