"""Build a `Transcript` from a provider-neutral message log (see the package docstring)."""

from __future__ import annotations

import json
from dataclasses import dataclass

LONG_TEXT = 600  # characters of arguments or result past which a tool card starts collapsed
# Reads of the patient's record: a reader checks the agent's claims against them, so their
# results stay open however long they are.
CHART_READS = frozenset({"get_profile", "list_medications", "list_appointments"})

# The only message and call fields a transcript reads. Everything else in a stored message
# (raw provider payloads, thinking, provider ids, usage) is never looked at.
MESSAGE_FIELDS = ("role", "content", "tool_calls", "tool_call_id", "status")
CALL_FIELDS = ("id", "name", "arguments", "raw_arguments", "malformed")
SPEAKERS = {"user": "user", "assistant": "agent", "system": "system"}


@dataclass(frozen=True, slots=True)
class ToolCard:
    anchor: str  # "t3": the third tool call of the conversation, whatever id it was stored with
    number: int
    name: str
    arguments: str
    result: str
    status: str  # "ok", "error", or "no result" when nothing answered the call
    malformed: bool
    collapsed: bool  # long, and not a read of the chart
    reads_chart: bool  # shown whole: a reader checks claims against it


@dataclass(frozen=True, slots=True)
class Turn:
    anchor: str  # "turn-5"; "system" for the system prompt; "" for tool calls without words
    number: int
    speaker: str  # "user", "agent" or "system"
    text: str
    tool_cards: tuple[ToolCard, ...] = ()


@dataclass(frozen=True, slots=True)
class Transcript:
    turns: tuple[Turn, ...]
    user_label: str = "User"  # "Patient" in scenario conversations

    @property
    def tool_cards(self) -> tuple[ToolCard, ...]:
        return tuple(card for turn in self.turns for card in turn.tool_cards)

    @property
    def agent_replied(self) -> bool:
        """Whether the agent wrote to the patient (a tool call alone is no reply); a rubric's
        N/A rule may hinge on it (`Dimension.not_applicable_refusal`)."""
        return any(turn.speaker == "agent" and turn.text for turn in self.turns)

    @property
    def anchors(self) -> frozenset[str]:
        """Every place a comment may point to."""
        return frozenset(
            [turn.anchor for turn in self.turns if turn.anchor]
            + [card.anchor for card in self.tool_cards]
        )


def transcript_of(
    messages: list[dict], *, user_label: str = "User", include_system: bool = True
) -> Transcript:
    visible = [_allowed(message, MESSAGE_FIELDS) for message in messages]
    answers = {m.get("tool_call_id"): m for m in visible if m.get("role") == "tool"}
    turns: list[Turn] = []
    calls_seen = turns_seen = 0
    for message in visible:
        speaker = SPEAKERS.get(message.get("role"))
        if speaker is None or (speaker == "system" and not include_system):
            continue  # tool results appear inside the card of the call they answer
        cards = []
        if speaker == "agent":
            for call in message.get("tool_calls") or ():
                calls_seen += 1
                call = _allowed(call, CALL_FIELDS)
                cards.append(_tool_card(call, answers.get(call.get("id")), calls_seen))
        text = _text(message.get("content"))
        if not text and not cards:
            continue
        if speaker == "system":
            turns.append(Turn("system", 0, speaker, text))
            continue
        if not text:  # tool calls only: no bubble to number; each card has its own anchor
            turns.append(Turn("", 0, speaker, text, tuple(cards)))
            continue
        turns_seen += 1
        turns.append(Turn(f"turn-{turns_seen}", turns_seen, speaker, text, tuple(cards)))
    return Transcript(tuple(turns), user_label)


def pretty(value) -> str:
    """Pretty-print JSON (or JSON text); anything else as it is. Escaping is the template's job."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (json.JSONDecodeError, TypeError):
            return value
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)


def _allowed(record, fields: tuple[str, ...]) -> dict:
    return {key: record[key] for key in fields if key in record} if isinstance(record, dict) else {}


def _tool_card(call: dict, answer: dict | None, number: int) -> ToolCard:
    malformed = bool(call.get("malformed", False))
    name = _text(call.get("name"))
    arguments = _text(call.get("raw_arguments")) if malformed else pretty(call.get("arguments"))
    result = pretty(answer.get("content", "")) if answer else ""
    return ToolCard(
        anchor=f"t{number}",
        number=number,
        name=name,
        arguments=arguments,
        result=result,
        status=_text((answer or {}).get("status")) or ("ok" if answer else "no result"),
        malformed=malformed,
        collapsed=(len(arguments) > LONG_TEXT or len(result) > LONG_TEXT)
        and name not in CHART_READS,
        reads_chart=name in CHART_READS,
    )


def _text(value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else pretty(value)
