"""Turn a stored message log into what a trace page shows: turns and readable tool cards."""

from __future__ import annotations

import json

LONG_TEXT = 600


def pretty(value) -> str:
    """Pretty-print JSON (or JSON text); anything else as it is. Escaping is the template's job."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (json.JSONDecodeError, TypeError):
            return value
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)


def conversation_items(messages: list[dict]) -> list[dict]:
    results = {m.get("tool_call_id"): m for m in messages if m.get("role") == "tool"}
    items = []
    for message in messages:
        role = message.get("role")
        if role == "tool":
            continue  # shown inside the card of the call it answers
        if role == "assistant":
            if message.get("content"):
                items.append({"kind": "agent", "text": message["content"]})
            for call in message.get("tool_calls", []):
                items.append(_tool_card(call, results.get(call.get("id"))))
        elif role in ("user", "system"):
            items.append({"kind": role, "text": message.get("content", "")})
    return items


def _tool_card(call: dict, answer: dict | None) -> dict:
    arguments = call["raw_arguments"] if call.get("malformed") else pretty(call.get("arguments"))
    result = pretty(answer.get("content", "")) if answer else ""
    return {
        "kind": "tool",
        "id": call.get("id", ""),
        "name": call.get("name", ""),
        "malformed": call.get("malformed", False),
        "arguments": arguments,
        "result": result,
        "status": (answer or {}).get("status", "no result"),
        "long": len(arguments) > LONG_TEXT or len(result) > LONG_TEXT,
    }
