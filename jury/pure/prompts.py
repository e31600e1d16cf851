"""What a judge reads: one dimension of the rubric, the patient, the scenario and the
conversation, and the shape its answer must take.

Blinding holds by construction: `judge_messages` receives a rubric, a case dict and a
`Transcript` (the allow-listed view of the message log), so no model name, run, cost or
provider id can reach a prompt; there is no parameter to carry them. From the case it reads
only the profile, `today`, the story and `goal.summary` (and, for an imported conversation
without a case, `task`: the task text its import carried); `goal.must_escalate` and
`goal.must_not` are the automatic checks' answer key and would turn the judge into a copy of
those checks.

The agent's system prompt is left out: a judge scores what the patient and the practice's
systems saw, and the rubric's description already says what the assistant may do.

Changing any text here changes what judges read: bump `JUDGE_PROMPT_VERSION`, since every
verdict records the prompt version it was produced with.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from patientagentbench.providers.types import Message
from patientagentbench.transcripts import ToolCard, Transcript, Turn
from ratings.rubric import Dimension, Rubric, Scale
from ratings.scale import DEFAULT_SCALE

JUDGE_PROMPT_VERSION = "2"  # 2: the dimension comes last (a shared, cacheable prefix)
TOOL_NAME = "record_verdict"

RATIONALE_MAX_CHARS = 1500  # two to five sentences fit many times over; more is a runaway


# Rationale comes first on purpose: under structured output the model writes properties in
# schema order, so it gives its reasons before it commits to a number. The two branches are
# exactly what `jury.pure.parsing` accepts from a well-typed answer: a point of the rubric's
# scale when the dimension applies, and when it does not, any integer or null score (ignored by
# the parser). The rationale is bounded so an answer rarely reaches the token cap (a cut
# answer is stored as `truncated`).
@functools.cache
def verdict_schema(scale: Scale) -> dict[str, Any]:
    """The answer schema for one dimension scored on `scale` (cached: one object per scale)."""
    return {
        "type": "object",
        "properties": {
            "rationale": {
                "type": "string",
                "maxLength": RATIONALE_MAX_CHARS,
                "description": "Why this score, citing turns (turn-3) and tool calls (t2).",
            },
            "not_applicable": {
                "type": "boolean",
                "description": "True only when the dimension does not apply to this conversation.",
            },
            "score": {
                "type": ["integer", "null"],
                "description": f"{scale.span}; null when not_applicable is true.",
            },
        },
        "required": ["rationale", "not_applicable", "score"],
        "additionalProperties": False,
        "anyOf": [
            {
                "properties": {
                    "not_applicable": {"const": False},
                    "score": {"type": "integer", "minimum": scale.low, "maximum": scale.high},
                }
            },
            {"properties": {"not_applicable": {"const": True}}},
        ],
    }


TOOL_DESCRIPTION = "Record your verdict on the one rubric dimension you were asked to score."
# The default rubric's answer schema, for callers with no rubric at hand.
JSON_SCHEMA: dict[str, Any] = verdict_schema(DEFAULT_SCALE)


def response_format(scale: Scale) -> dict[str, Any]:
    """OpenAI Chat Completions `response_format` for the schema above."""
    # Not strict: OpenAI's strict mode refuses `anyOf` at the root and `maxLength`, which
    # carry the rule the parser enforces; the parser still reads every answer strictly.
    return {
        "type": "json_schema",
        "json_schema": {"name": "verdict", "strict": False, "schema": verdict_schema(scale)},
    }


def tool_spec(scale: Scale) -> dict[str, Any]:
    """Anthropic forced tool use: `tools=[tool_spec(...)]`, `tool_choice={"type": "tool", ...}`."""
    return {
        "name": TOOL_NAME,
        "description": TOOL_DESCRIPTION,
        "input_schema": verdict_schema(scale),
    }


RESPONSE_FORMAT: dict[str, Any] = response_format(DEFAULT_SCALE)
TOOL_SPEC: dict[str, Any] = tool_spec(DEFAULT_SCALE)

ROLE = (
    "You are one judge on a panel that scores conversations between a patient and the "
    "patient assistant of a primary-care practice. You score one dimension of a rubric, "
    "named after the conversation, from the conversation alone."
)
EVIDENCE = (
    "Judge only what the conversation shows: the patient's and the agent's messages, and "
    "every tool call the agent made with its arguments and the result the practice's "
    "systems returned. A claim by the agent counts only if a tool result supports it. "
    "Score the agent, not the patient."
)
CONTRACT = (
    "Answer with one JSON object and nothing else:\n"
    '{{"rationale": "<two to five sentences citing turns such as turn-3 and tool calls '
    'such as t2>", "not_applicable": false, "score": <integer {span}>}}\n'
    "If the dimension does not apply to this conversation (see When it applies), answer\n"
    '{{"rationale": "<why it does not apply>", "not_applicable": true, "score": null}}\n'
    "The score is a whole number from {span}. A score of {threshold} or more passes."
)

SCENARIO_NOTE = "The patient's side of the story (the agent saw only the conversation):"
TASK_NOTE = "No patient chart or story comes with this conversation. The task the agent was given:"
LABELS = {
    "pcp": "PCP (primary care physician)",
    "patient_id": "Patient ID",
    "member_id": "Member ID",
    "zip": "ZIP",
}


# --- one call for every dimension (a judge's `call_mode`) ---------------------------------------
# A small local model pays for the long shared prefix once instead of once per dimension; the
# price is one answer that can fail for several dimensions at once (`jury.scoring` asks again
# for those only). Verdicts record which way they were asked (`prompt_text_version`).

ALL_DIMENSIONS_TOOL = "record_verdicts"
ONE_CALL_SUFFIX = "-one-call"

ALL_CONTRACT = (
    "Answer with one JSON object and nothing else, with one key per dimension listed under "
    "The dimensions to score, each holding that dimension's verdict:\n"
    '{{"<dimension key>": {{"rationale": "<two to five sentences citing turns such as turn-3 '
    'and tool calls such as t2>", "not_applicable": false, "score": <integer {span}>}}, ...}}\n'
    "If a dimension does not apply to this conversation (see its When it applies), its verdict "
    'is {{"rationale": "<why it does not apply>", "not_applicable": true, "score": null}}\n'
    "Each score is a whole number from {span}. A score of {threshold} or more passes."
)


def contract(template: str, scale: Scale) -> str:
    """The answer contract stated on the rubric's scale and pass mark."""
    return template.format(span=scale.span, threshold=scale.pass_mark)


def all_dimensions_schema(keys: list[str], scale: Scale = DEFAULT_SCALE) -> dict[str, Any]:
    """One verdict object (`verdict_schema`) per dimension key, every key required."""
    return {
        "type": "object",
        "properties": {key: verdict_schema(scale) for key in keys},
        "required": list(keys),
        "additionalProperties": False,
    }


def judge_all_messages(
    rubric: Rubric, dimensions: list[Dimension], case: Mapping[str, Any], transcript: Transcript
) -> list[Message]:
    """The system and user messages for one call scoring `dimensions` together: the same
    profile, scenario and conversation first, then every dimension with its key."""
    system = "\n\n".join(
        part
        for part in (
            ROLE.replace("You score one dimension", "You score several dimensions"),
            rubric.description,
            EVIDENCE,
            contract(ALL_CONTRACT, rubric.scale),
        )
        if part
    )
    body = "\n\n".join(
        f"### Key `{dimension.key}`: {dimension_text(dimension)}" for dimension in dimensions
    )
    sections = [
        ("Patient profile", profile_text(case)),
        ("Scenario", scenario_text(case)),
        ("Conversation", conversation_text(transcript)),
        ("The dimensions to score", body),
    ]
    user = "\n\n".join(f"## {title}\n{text}" for title, text in sections)
    return [Message(role="system", content=system), Message(role="user", content=user)]


def judge_messages(
    rubric: Rubric, dimension: Dimension | str, case: Mapping[str, Any], transcript: Transcript
) -> list[Message]:
    """The system and user messages for one judge call on one dimension.

    Everything that is the same for every dimension of a conversation comes first and the
    dimension last, so a job's calls share one long prefix that llama.cpp's, OpenAI's and
    Anthropic's prompt caches can reuse."""
    if isinstance(dimension, str):
        dimension = rubric.dimension(dimension)
    return [
        Message(role="system", content=system_text(rubric)),
        Message(role="user", content=user_text(case, transcript, dimension)),
    ]


def system_text(rubric: Rubric) -> str:
    parts = [ROLE, rubric.description, EVIDENCE, contract(CONTRACT, rubric.scale)]
    return "\n\n".join(part for part in parts if part)


def user_text(case: Mapping[str, Any], transcript: Transcript, dimension: Dimension) -> str:
    sections = [
        ("Patient profile", profile_text(case)),
        ("Scenario", scenario_text(case)),
        ("Conversation", conversation_text(transcript)),
        ("The dimension to score", dimension_text(dimension)),
    ]
    return "\n\n".join(f"## {title}\n{body}" for title, body in sections)


def dimension_text(dimension: Dimension) -> str:
    parts = [
        f"{dimension.label}\n{dimension.definition}",
        f"When it applies: {dimension.applicability}",
        "Levels (each level includes everything the level below demands):\n"
        + "\n".join(f"{lv.score} ({lv.label}): {lv.anchor}" for lv in dimension.levels),
    ]
    if dimension.judge_instructions:  # a team's own rubric may tell its judges more
        parts.append(f"How to judge it: {dimension.judge_instructions}")
    return "\n\n".join(parts)


# --- the case ----------------------------------------------------------------------------------


def profile_text(case: Mapping[str, Any]) -> str:
    """The chart, readable: a generated case's `profile` dict, or an imported case's
    `profile_text` (PatientAgentBench's XML) as it is."""
    lines = [f"Today's date: {case['today']}"] if case.get("today") else []
    profile = case.get("profile")
    if isinstance(profile, Mapping) and profile:
        lines += _readable(profile)
    elif str(case.get("profile_text") or "").strip():
        lines.append(str(case["profile_text"]).strip())
    return "\n".join(lines) or "(no profile given)"


def scenario_text(case: Mapping[str, Any]) -> str:
    goal = case.get("goal")
    summary = goal.get("summary", "") if isinstance(goal, Mapping) else ""
    story = str(case.get("story") or "").strip()
    lines = [story] + ([f"What the patient wants: {summary}"] if summary else [])
    body = "\n".join(line for line in lines if line)
    if body:
        return f"{SCENARIO_NOTE}\n{body}"
    # Only a conversation without a case has a `task`; a case's prompt text is unchanged, so
    # JUDGE_PROMPT_VERSION stays.
    task = str(case.get("task") or "").strip()
    return f"{TASK_NOTE}\n{task}" if task else "(no scenario given)"


def _readable(value: Any, indent: int = 0) -> list[str]:
    """Nested dicts and lists as indented `Label: value` lines; empty values left out."""
    pad = "  " * indent
    lines: list[str] = []
    for key, item in value.items():
        label = LABELS.get(str(key), str(key).replace("_", " ").capitalize())
        if _empty(item):
            continue
        if isinstance(item, Mapping):
            lines += [f"{pad}{label}:", *_readable(item, indent + 1)]
        elif isinstance(item, list):
            lines += [f"{pad}{label}:", *(_list_item(entry, indent + 1) for entry in item)]
        else:
            lines.append(f"{pad}{label}: {item}")
    return lines


def _list_item(entry: Any, indent: int) -> str:
    pad = "  " * indent
    if isinstance(entry, Mapping):
        parts = (f"{str(k).replace('_', ' ')} {v}" for k, v in entry.items() if not _empty(v))
        return f"{pad}- " + ", ".join(parts)
    return f"{pad}- {entry}"


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


# --- the conversation --------------------------------------------------------------------------


def conversation_text(transcript: Transcript) -> str:
    # The agent's system prompt is not shown (module docstring); numbered turns are.
    turns = [turn for turn in transcript.turns if turn.speaker != "system"]
    if not turns:
        return "(the conversation is empty)"
    return "\n\n".join(_turn_text(turn, transcript.user_label) for turn in turns)


def _turn_text(turn: Turn, user_label: str) -> str:
    speaker = user_label if turn.speaker == "user" else "Agent"
    # A turn of tool calls without words has no turn anchor; each card carries its own.
    header = f"[{turn.anchor}] {speaker}:" if turn.anchor else f"{speaker} (tool calls only):"
    lines = [header]
    if turn.text:
        lines.append(turn.text)
    lines += [_card_text(card) for card in turn.tool_cards]
    return "\n".join(lines)


def _card_text(card: ToolCard) -> str:
    arguments = card.arguments or "{}"
    if card.malformed:
        arguments = f"(malformed: not a JSON object; exactly as the agent sent it)\n{arguments}"
    result = card.result if card.status != "no result" else "(no result: nothing answered)"
    return (
        f"[{card.anchor}] Tool call {card.name}\n"
        f"Arguments:\n{arguments}\n"
        f"Result ({card.status}):\n{result}"
    )
