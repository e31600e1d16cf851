"""Generate a whole case set: sample attributes, write each case, check it.

Case ids run c0001, c0002, …; each case's seed comes from (set seed, index), so a set
regenerated from the same seed is identical case for case, whichever writer is used for
the attributes, and one case can be rewritten alone.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from sandbox.seeding import stable_rng

from .llm_writer import write_case_with_model
from .sampler import sample_cases
from .template_writer import write_case
from .validation import validate_case


class InvalidTemplateCase(RuntimeError):
    """The template writer produced a case the contract rejects: a bug, never data."""


def case_id_for(index: int) -> str:
    return f"c{index + 1:04d}"


def case_seed(set_seed: int, index: int) -> int:
    return stable_rng("case-seed", set_seed, index).getrandbits(31)


def generate_case_set(
    count: int, seed: int, writer: Any = "template", *, today: str = "2026-03-09"
) -> list[dict[str, Any]]:
    """`count` cases; `writer` is "template" or a Provider to write with a model."""
    if isinstance(writer, str) and writer != "template":
        raise ValueError(f"unknown writer {writer!r}: use 'template' or a provider")
    cases = []
    for index, attributes in enumerate(sample_cases(count, seed)):
        case_id, per_case_seed = case_id_for(index), case_seed(seed, index)
        if writer == "template":
            case = write_case(attributes, per_case_seed, case_id, today)
            errors = validate_case(case)
            if errors:
                raise InvalidTemplateCase(f"{case_id}: {'; '.join(errors)}")
        else:
            case = write_case_with_model(writer, attributes, per_case_seed, case_id, today)
        cases.append(case)
    return cases


def summarize(cases: list[dict[str, Any]]) -> dict[str, Any]:
    attributes = [c["attributes"] for c in cases]
    return {
        "cases": len(cases),
        "by_category": dict(Counter(a["category"] for a in attributes)),
        "subtasks": len({a["subtask"] for a in attributes}),
        "personalities": dict(Counter(a["personality"] for a in attributes)),
    }
