"""A judge's answer, read strictly: a score on the rubric's scale, not applicable, or unparseable.

The one rule that matters (DESIGN §5): a parse failure never becomes a number. So every
doubt resolves to `unparseable` with the raw text kept and a problem that says what was
wrong; the caller retries a bounded number of times and then stores exactly that.

What is accepted, and why:

- A JSON object (structured output, or a tool call's `input`), or text holding one: code
  fences and prose around it are ignored and the FIRST balanced object is read, because
  small models often wrap their JSON in explanations.
- `score`: a point of the rubric's scale (`scale`, the default rubric's unless the caller
  passes the one it scores; 1..5 today). A whole number written as a string ("3") or as a float (3.0) is
  accepted as that integer, since some servers quote or float their numbers; a fraction
  (2.5, "3.5") is refused, because the scale has no half steps and rounding would invent a
  score the judge did not give. Booleans are refused (JSON `true` is not 1).
- `not_applicable: true` wins over any score: the judge said the dimension does not apply.
  `not_applicable` may be a boolean, the strings "true"/"false", null or missing (false).
- `rationale` (or `explanation`, PatientAgentBench's name for it) may be missing or empty:
  the score is the measurement and a terse judge still measured; a rationale that is not
  text, or longer than the answer schema's bound (`RATIONALE_MAX_CHARS`), is refused.
- On a well-typed answer (the schema's three keys with their JSON types) this parser and
  `jury.pure.prompts.JSON_SCHEMA` agree exactly (tests/jury/test_parsing.py checks it).
- A refusal ("I can't help with that") or text without an object is unparseable.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jury.pure.prompts import RATIONALE_MAX_CHARS
from ratings.rating import NOT_APPLICABLE, OK, UNPARSEABLE
from ratings.rubric import Scale
from ratings.scale import DEFAULT_SCALE

RAW_LIMIT = 20_000  # characters of raw answer kept; a runaway answer is not stored whole

REFUSAL = re.compile(
    r"\b(i\s*(?:can(?:no|')t|cannot|won'?t|am\s+(?:not\s+able|unable)|'m\s+(?:not\s+able|"
    r"unable|sorry))|as an ai\b|i\s+must\s+decline|unable to (?:help|assist|comply))",
    re.IGNORECASE,
)
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class ParsedVerdict:
    status: str  # "ok" | "not_applicable" | "unparseable"
    score: int | None  # a point of the scale exactly when status is "ok"
    rationale: str
    raw: str
    problem: str = ""  # why it is unparseable; empty otherwise

    @property
    def ok(self) -> bool:
        return self.status == OK


def parse_verdict(
    answer: str | Mapping[str, Any] | None, scale: Scale = DEFAULT_SCALE
) -> ParsedVerdict:
    """Read one judge answer (text, or an already decoded object); never raises."""
    if isinstance(answer, Mapping):
        return _from_object(answer, _raw_of(answer), scale)
    raw = _clip("" if answer is None else str(answer))
    if not raw.strip():
        return _unparseable(raw, "the answer is empty")
    found = first_json_object(raw)
    if found is None:
        if REFUSAL.search(raw):
            return _unparseable(raw, "the judge refused to answer")
        return _unparseable(raw, "no JSON object in the answer")
    return _from_object(found, raw, scale)


def parse_completion(
    completion: Any, tool_name: str = "record_verdict", scale: Scale = DEFAULT_SCALE
) -> ParsedVerdict:
    """Read a provider's `Completion`: the `record_verdict` tool call's input when there is
    one (Anthropic forced tool use), its raw argument text when that input was malformed
    (so the raw answer is kept), else the text (OpenAI `response_format`)."""
    calls = list(getattr(completion, "tool_calls", None) or ())
    call = next((c for c in calls if c.name == tool_name), calls[0] if calls else None)
    if call is None:
        return parse_verdict(getattr(completion, "text", ""), scale)
    return parse_verdict(call.raw_arguments if call.arguments is None else call.arguments, scale)


def parse_all_dimensions(
    completion: Any,
    keys: list[str],
    tool_name: str = "record_verdicts",
    scale: Scale = DEFAULT_SCALE,
) -> dict[str, ParsedVerdict]:
    """Read one answer that scores several dimensions (`{key: verdict, ...}`): each key's
    verdict read as `parse_verdict` reads one, a missing or non-object one unparseable, so
    one bad dimension never spoils the others."""
    calls = list(getattr(completion, "tool_calls", None) or ())
    call = next((c for c in calls if c.name == tool_name), calls[0] if calls else None)
    if call is not None and call.arguments is not None:
        found, raw = call.arguments, _raw_of(call.arguments)
    else:
        raw = _clip(str(call.raw_arguments if call is not None else completion.text or ""))
        found = first_json_object(raw)
    if not isinstance(found, Mapping):
        whole = parse_verdict(raw)  # says why: empty, a refusal, no JSON object
        problem = whole.problem or "the answer is not one object keyed by dimension"
        return {key: _unparseable(raw, problem) for key in keys}
    verdicts = {}
    for key in keys:
        part = found.get(key)
        if isinstance(part, Mapping):
            verdicts[key] = _from_object(part, _raw_of(part), scale)
        else:
            verdicts[key] = _unparseable(raw, f"no verdict object for dimension {key!r}")
    return verdicts


def first_json_object(text: str) -> dict | None:
    """The first balanced JSON object in `text` (fences and prose around it ignored)."""
    start = text.find("{")
    while start != -1:
        try:
            value, _end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None


def _from_object(data: Mapping[str, Any], raw: str, scale: Scale) -> ParsedVerdict:
    rationale, problem = _rationale(data)
    if problem:
        return _unparseable(raw, problem, rationale)
    not_applicable, problem = _flag(data.get("not_applicable"))
    if problem:
        return _unparseable(raw, problem, rationale)
    if not_applicable:
        return ParsedVerdict(NOT_APPLICABLE, None, rationale, raw)
    score, problem = _score(data.get("score"), scale)
    if problem:
        return _unparseable(raw, problem, rationale)
    return ParsedVerdict(OK, score, rationale, raw)


def _score(value: Any, scale: Scale) -> tuple[int | None, str]:
    if value is None:
        return None, "no score, and not marked not applicable"
    number = None if isinstance(value, bool) else _whole_number(value)
    if number is None:
        return None, f"score must be a whole number from {scale.span}, got {value!r}"
    if number not in scale:
        return None, f"score {number} is outside {scale.span}"
    return number, ""


def _whole_number(value: Any) -> int | None:
    if isinstance(value, str):
        text = value.strip()
        return int(text) if re.fullmatch(r"[+-]?\d{1,6}", text) else None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


def _flag(value: Any) -> tuple[bool, str]:
    if value is None or isinstance(value, bool):
        return bool(value), ""
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true", ""
    return False, f"not_applicable must be true or false, got {value!r}"


def _rationale(data: Mapping[str, Any]) -> tuple[str, str]:
    value = data.get("rationale", data.get("explanation"))
    if value is None:
        return "", ""
    if not isinstance(value, str):
        return "", f"rationale must be text, got {type(value).__name__}"
    if len(value) > RATIONALE_MAX_CHARS:
        return "", f"rationale is longer than {RATIONALE_MAX_CHARS} characters ({len(value)})"
    return value.strip(), ""


def _unparseable(raw: str, problem: str, rationale: str = "") -> ParsedVerdict:
    return ParsedVerdict(UNPARSEABLE, None, rationale, raw, problem)


def _raw_of(data: Mapping[str, Any]) -> str:
    try:
        return _clip(json.dumps(data, ensure_ascii=False, default=str))
    except (TypeError, ValueError):
        return _clip(repr(data))


def _clip(text: str) -> str:
    return text if len(text) <= RAW_LIMIT else text[:RAW_LIMIT] + "…[truncated]"
