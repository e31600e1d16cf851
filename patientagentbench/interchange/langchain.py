"""PatientAgentBench's conversations.json: LangChain message dumps, read into our message log.

Each record holds `case_id`, `conversation` (messages with `type` human / ai / tool),
`user_profile` (XML text), `scenario` (condition, severity, task type, personality, …).
AI messages carry tool calls either as `tool_calls` ({name, args, id}) or, from Anthropic
models, as `tool_use` content blocks; both may appear for the same call, so ids dedupe them.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, ValidationError

from patientagentbench.cases.schema import SUBTASKS
from patientagentbench.interchange.schema import (
    COUNT_MAX,
    DIFFICULTY_MAX,
    MODEL_NAME_MAX,
    TASK_ID_MAX,
    Count,
    FormatError,
    JsonTextError,
    Place,
    Strict,
    first_problem,
    load,
    name_of,
    nested_place,
    one_of,
    scan,
    text_of,
)
from patientagentbench.providers.types import Message, ToolCall

END_MARKERS = ("[DROPPED OFF CONVERSATION]", "[END]")


class LangChainFormatError(FormatError):
    """A conversations file that cannot be imported; the message says where and why."""


# --- the schema: what the parser below reads, with the bounds of the columns it fills ------


class _Usage(Strict):
    input_tokens: Count | None = Field(None, description=f"an integer from 0 to {COUNT_MAX}")
    output_tokens: Count | None = Field(None, description=f"an integer from 0 to {COUNT_MAX}")


class _Call(Strict):
    name: name_of(None) = Field(description="a non-empty string")
    args: Any = None
    id: str | None = Field(None, description="a string or null")


Content = Annotated[
    str | list[dict[str, Any]] | None,
    one_of("text, an array of content blocks (objects) or null"),
]


class _Message(Strict):
    type: Literal["human", "ai", "tool"] = Field(description="one of human, ai, tool")
    content: Content = None
    tool_calls: list[_Call] | None = Field(None, description="an array of tool calls or null")
    usage_metadata: _Usage | None = Field(None, description="an object or null")
    tool_call_id: str | None = Field(None, description="a string or null")
    name: str | None = Field(None, description="a string or null")
    status: str | None = Field(None, description="a string or null")


class _TextBlock(Strict):
    text: str | None = Field(None, description="a string or null")


class _ToolUseBlock(Strict):
    name: name_of(None) = Field(description="a non-empty string")
    input: Any = None
    id: str | None = Field(None, description="a string or null")


_BLOCKS = {"text": _TextBlock, "tool_use": _ToolUseBlock}


class _Scenario(Strict):
    task_type: str | None = Field(None, description="a string or null")
    condition_name: str | None = Field(None, description="a string or null")
    severity_level: str | None = Field(None, description="a string or null")
    preferred_care_option: str | None = Field(None, description="a string or null")
    personality: str | None = Field(None, description="a string or null")
    scenario_complexity: text_of(DIFFICULTY_MAX) | None = Field(
        None, description=f"a string of at most {DIFFICULTY_MAX} characters or null"
    )
    patient_story: str | None = Field(None, description="a string or null")


class _Conversation(Strict):
    case_id: name_of(TASK_ID_MAX) = Field(
        description=f"a string (non-empty, at most {TASK_ID_MAX} characters)"
    )
    model: name_of(MODEL_NAME_MAX) | None = Field(
        None, description=f"a string (non-empty, at most {MODEL_NAME_MAX} characters) or null"
    )
    agent_model: name_of(MODEL_NAME_MAX) | None = Field(
        None, description=f"a string (non-empty, at most {MODEL_NAME_MAX} characters) or null"
    )
    personality: str | None = Field(None, description="a string or null")
    user_profile: str | None = Field(None, description="a string or null")
    scenario: _Scenario | None = Field(None, description="an object or null")
    conversation: list[_Message] = Field(description="an array of messages")


_CONVERSATIONS = list[_Conversation]
_ADAPTER = TypeAdapter(_CONVERSATIONS)


def looks_like_patientagentbench(data) -> bool:
    return (
        isinstance(data, list)
        and bool(data)
        and isinstance(data[0], dict)
        and ("conversation" in data[0])
    )


def parse_conversations(data: list) -> list[dict]:
    """Plain per-conversation dicts: case_id, model, messages, calls, final text, attributes.
    Raises `LangChainFormatError` naming the conversation, message and field of the first bad
    value."""
    place = _place(data)
    if problem := scan(data):
        raise LangChainFormatError(place.line(problem))
    try:
        _ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise LangChainFormatError(place.line(first_problem(exc, _CONVERSATIONS))) from None
    for index, record in enumerate(data):
        _check_blocks(record["conversation"], index, place)
    return [_conversation(record, index) for index, record in enumerate(data)]


def _check_blocks(raw_messages: list, index: int, place: Place) -> None:
    """Content blocks the parser reads (text, tool_use) hold what it reads."""
    for position, raw in enumerate(raw_messages):
        if not isinstance(raw.get("content"), list):
            continue
        for number, block in enumerate(raw["content"]):
            model = _BLOCKS.get(block.get("type"))
            if model is None:
                continue
            try:
                model.model_validate(block)
            except ValidationError as exc:
                prefix = (index, "conversation", position, "content", number)
                raise LangChainFormatError(place.line(first_problem(exc, model, prefix))) from None


def _place(data: list) -> Place:
    """Problems are placed "conversation 1 (case-7), message 2, tool_calls[0]"."""
    return nested_place(
        data,
        outer="conversation",
        label=_label,
        inner_key="conversation",
        inner="message",
        nothing="the file",
    )


def _label(record: Any) -> str:
    case_id = record.get("case_id") if isinstance(record, dict) else None
    sound = isinstance(case_id, str) and case_id.strip() and len(case_id) <= TASK_ID_MAX
    return f" ({case_id})" if sound else ""


def _conversation(record: dict, index: int) -> dict:
    case_id = record["case_id"]
    where = f"conversation {index} ({case_id})"
    raw_messages = record["conversation"]
    messages = _messages(raw_messages, where)
    scenario = record.get("scenario") or {}
    tokens = _tokens(raw_messages)
    if max(tokens) > COUNT_MAX:
        raise LangChainFormatError(
            f"{where}, field 'usage_metadata': the messages' token counts add up to more "
            f"than {COUNT_MAX}"
        )
    return {
        "case_id": case_id,
        "model": record.get("model") or record.get("agent_model") or "unknown-agent",
        "messages": messages,
        "ended_by_patient": _ended_by_patient(raw_messages),
        "tokens": tokens,
        "attributes": _attributes(scenario, record),
        "case": {
            "profile_text": record.get("user_profile") or "",
            "story": scenario.get("patient_story") or "",
            "scenario": scenario,
        },
    }


def _messages(raw_messages: list, where: str) -> list[Message]:
    messages: list[Message] = []
    neutral: dict[str, str] = {}  # provider id -> t1, t2, …
    for position, raw in enumerate(raw_messages):
        here = f"{where}, message {position}"
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
        seen.add(provider_id)
        neutral[provider_id] = f"t{len(neutral) + 1}"
        raw_arguments = args if isinstance(args, str) else json.dumps(args or {})
        calls.append(_tool_call(neutral[provider_id], name, raw_arguments, provider_id or ""))
    return Message(role="assistant", content=_text(raw.get("content"), where), tool_calls=calls)


def _tool_call(neutral_id: str, name: str, raw_arguments: str, provider_id: str) -> ToolCall:
    """`ToolCall.parse`, with arguments read as safely as the file: text that is not a JSON
    object we can store (NaN, too deep, NUL) leaves the call malformed, its text kept."""
    try:
        parsed = load(raw_arguments) if raw_arguments.strip() else {}
    except JsonTextError:
        parsed = None
    storable = isinstance(parsed, dict) and scan(parsed) is None
    return ToolCall(
        id=neutral_id,
        name=name,
        raw_arguments=raw_arguments,
        arguments=parsed if storable else None,
        provider_id=provider_id,
        malformed=not storable,
    )


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
    return "\n".join(b.get("text") or "" for b in content if b.get("type") == "text").strip()


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
    category, subtask = split_task_type(scenario.get("task_type") or "")
    return {
        "category": category,
        "subtask": subtask,
        "condition": scenario.get("condition_name") or "",
        "severity": scenario.get("severity_level") or "",
        "care_preference": scenario.get("preferred_care_option") or "",
        "personality": scenario.get("personality") or record.get("personality") or "",
        "complexity": scenario.get("scenario_complexity") or "",
    }


def split_task_type(task_type: str) -> tuple[str, str]:
    """'medication_prescription_renewal' -> ('medication', 'prescription_renewal')."""
    for category in sorted(SUBTASKS, key=len, reverse=True):
        if task_type.startswith(category + "_"):
            return category, task_type[len(category) + 1 :]
    return "", task_type
