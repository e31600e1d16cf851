"""PatientAgentBench's `evaluations.json`, read into plain per-judge verdict records, so its
published jury scores can sit beside our own judges and, later, clinicians (DESIGN §8).

The file is `conversations.json` with judges' results added to each record:
`evaluation_<i>.rubric_results.<dimension>.{score, explanation, raw_response}` per judge i,
and `evaluation` holding the panel's mean, std and pass agreement. Only the per-judge
results are read; the panel is recomputed here with our own aggregation, so imported and
native verdicts are aggregated the same way.

Decisions:

- Conversation key: the record's `case_id`, the key the conversations.json importer gives
  the conversation; a case_id repeated in one file is refused (it could not be matched).
- Judge name: `evaluation_<i>` (the file names no judge model), unless `judge_names` maps i
  to a name.
- Dimensions: PatientAgentBench's six names are our rubric keys one for one
  (`DIMENSION_MAP`); any other name is refused rather than dropped.
- Scores: an integer 1..5 (a whole float such as 4.0 is read as 4) → `ok`; `null` →
  `unparseable` (the judge's answer could not be read; `raw_response` is kept), or
  `not_applicable` when the result says `not_applicable: true` or the score is the text
  "N/A"; a fraction, a number outside 1..5 or any other text is a format error.

Strict and atomic: the first problem raises `EvaluationsFormatError` naming the record and
the field, and nothing is returned; the caller writes all or nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patientagentbench.interchange import schema
from ratings.rating import NOT_APPLICABLE, NOT_APPLICABLE_READS, OK, UNPARSEABLE
from ratings.scale import DEFAULT_SCALE

DIMENSION_MAP = {
    "clinical_safety": "clinical_safety",
    "workflow_accuracy": "workflow_accuracy",
    "triage_quality": "triage_quality",
    "clinical_helpfulness": "clinical_helpfulness",
    "task_completion": "task_completion",
    "conversational_quality": "conversational_quality",
}
EVALUATION_KEY = re.compile(r"^evaluation_(\d+)$")


class EvaluationsFormatError(ValueError):
    """evaluations.json breaks the format; the message names the record and the field."""


@dataclass(frozen=True)
class ImportedVerdict:
    conversation: str  # the case_id, as conversations.json keys the conversation
    judge: str
    dimension: str  # our rubric key
    score: int | None  # an integer 1..5 exactly when status is "ok"
    status: str  # "ok" | "not_applicable" | "unparseable"
    rationale: str
    raw: str


def read_evaluations(
    path: Path, conversations_path: Path | None = None, **options: Any
) -> list[ImportedVerdict]:
    """Read the file (and, when given, check every case_id against conversations.json)."""
    data = _load(path)
    keys = None
    if conversations_path is not None:
        conversations = _load(conversations_path)
        if not isinstance(conversations, list):
            raise EvaluationsFormatError(f"{conversations_path.name}: must be a JSON array")
        keys = {c.get("case_id") for c in conversations if isinstance(c, dict)}
    return parse_evaluations(data, conversation_keys=keys, **options)


def parse_evaluations(
    data: Any,
    conversation_keys: Collection[str] | None = None,
    judge_names: Mapping[int, str] | None = None,
) -> list[ImportedVerdict]:
    if not isinstance(data, list) or not data:
        raise EvaluationsFormatError("the file must be a non-empty JSON array of conversations")
    seen: set[str] = set()
    verdicts: list[ImportedVerdict] = []
    for index, record in enumerate(data):
        case_id = _case_id(record, index, seen, conversation_keys)
        where = f"record {index} ({case_id})"
        for key, judge in _judges(record, where, judge_names or {}):
            verdicts += _judge_verdicts(record[key], case_id, judge, f"{where}, field '{key}")
    return verdicts


def _load(path: Path) -> Any:
    """The file's JSON, with the guards every import shares (patientagentbench.interchange.
    schema): UTF-8, bounded nesting (no RecursionError), finite numbers, storable text."""
    try:
        data = schema.load(schema.decode(path.read_bytes()))
    except OSError as error:
        raise EvaluationsFormatError(f"{path.name}: cannot be read ({error.strerror})") from None
    except schema.JsonTextError as error:
        raise EvaluationsFormatError(f"{path.name}: {error}") from None
    if problem := schema.scan(data):
        raise EvaluationsFormatError(f"{path.name}: {_place(problem.loc)} {_said(problem)}")
    return data


def _place(loc: tuple) -> str:
    if not loc:
        return "the file"
    record, *field = loc
    where = f"record {record}" if isinstance(record, int) else f"field '{record}'"
    path = ".".join(str(part) for part in field)
    return f"{where}, field '{path}'" if path else where


def _said(problem: schema.Problem) -> str:
    return problem.message or f"must be {problem.expected}, got {problem.got}"


def _case_id(record: Any, index: int, seen: set[str], keys: Collection[str] | None) -> str:
    if not isinstance(record, dict):
        raise EvaluationsFormatError(f"record {index}: must be an object")
    case_id = record.get("case_id")
    if not isinstance(case_id, str) or not case_id:
        raise EvaluationsFormatError(f"record {index}, field 'case_id': a non-empty string")
    if case_id in seen:
        raise EvaluationsFormatError(f"record {index}, field 'case_id': {case_id} repeats")
    if keys is not None and case_id not in keys:
        raise EvaluationsFormatError(
            f"record {index}, field 'case_id': {case_id} is not in conversations.json"
        )
    seen.add(case_id)
    return case_id


def _judges(record: dict, where: str, names: Mapping[int, str]) -> list[tuple[str, str]]:
    """(key, judge name) per `evaluation_<i>`, in the order of i."""
    numbers = sorted(int(m.group(1)) for key in record if (m := EVALUATION_KEY.match(key)))
    if not numbers:
        raise EvaluationsFormatError(
            f"{where}, field 'evaluation_0': no per-judge evaluation (evaluation_<i>)"
        )
    return [(f"evaluation_{n}", names.get(n, f"evaluation_{n}")) for n in numbers]


def _judge_verdicts(evaluation: Any, case_id: str, judge: str, at: str) -> list[ImportedVerdict]:
    results = evaluation.get("rubric_results") if isinstance(evaluation, dict) else None
    if not isinstance(results, dict) or not results:
        raise EvaluationsFormatError(f"{at}.rubric_results': must be a non-empty object")
    return [
        _verdict(case_id, judge, name, result, f"{at}.rubric_results.{name}")
        for name, result in results.items()
    ]


def _verdict(case_id: str, judge: str, name: str, result: Any, at: str) -> ImportedVerdict:
    if name not in DIMENSION_MAP:
        known = ", ".join(DIMENSION_MAP)
        raise EvaluationsFormatError(f"{at}': unknown dimension {name!r} (known: {known})")
    if not isinstance(result, dict):
        raise EvaluationsFormatError(f"{at}': must be an object")
    status, score = _status_and_score(result, at)
    return ImportedVerdict(
        conversation=case_id,
        judge=judge,
        dimension=DIMENSION_MAP[name],
        score=score,
        status=status,
        rationale=_text(result, "explanation", at),
        raw=_text(result, "raw_response", at),
    )


def _status_and_score(result: dict, at: str) -> tuple[str, int | None]:
    score = result.get("score")
    if result.get("not_applicable") is True:
        return NOT_APPLICABLE, None
    if score is None:
        return UNPARSEABLE, None
    if isinstance(score, str) and score.strip().lower() in NOT_APPLICABLE_READS:
        return NOT_APPLICABLE, None
    # The format names the v1 rubric's six dimensions (DIMENSION_MAP), so its scale is v1's.
    if not _whole(score) or int(score) not in DEFAULT_SCALE:
        raise EvaluationsFormatError(
            f"{at}.score': an integer from {DEFAULT_SCALE.span}, got {score!r}"
        )
    return OK, int(score)


def _whole(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return isinstance(value, int) or (math.isfinite(value) and value.is_integer())


def _text(result: dict, field: str, at: str) -> str:
    value = result.get(field)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise EvaluationsFormatError(f"{at}.{field}': must be text")
    return value
