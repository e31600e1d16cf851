"""Whole case sets: ids, seeds, the demo set's coverage, and the summary."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from patientagentbench.cases.generate import case_seed, generate_case_set, summarize
from patientagentbench.cases.sampler import REQUIRED_SUBTASKS
from patientagentbench.cases.schema import CATEGORY_WEIGHTS
from patientagentbench.cases.template_writer import write_case
from patientagentbench.cases.validation import validate_case
from patientagentbench.providers.types import Completion


@pytest.fixture(scope="module")
def demo():
    return generate_case_set(60, seed=2026)


def test_same_seed_same_set_and_different_seed_different_set(demo):
    assert generate_case_set(60, seed=2026) == demo
    assert generate_case_set(60, seed=2027) != demo


def test_ids_and_per_case_seeds(demo):
    assert [c["case_id"] for c in demo] == [f"c{i:04d}" for i in range(1, 61)]
    assert [c["seed"] for c in demo] == [case_seed(2026, i) for i in range(60)]
    assert len({c["seed"] for c in demo}) == 60
    assert all(c["today"] == "2026-03-09" and c["writer"] == "template" for c in demo)


def test_the_demo_set_covers_what_the_issue_asks(demo):
    assert all(validate_case(c) == [] for c in demo)
    subtasks = {c["attributes"]["subtask"] for c in demo}
    assert {c["attributes"]["category"] for c in demo} == set(CATEGORY_WEIGHTS)
    assert len(subtasks) >= 20
    assert set(REQUIRED_SUBTASKS) <= subtasks


def test_cases_are_plain_json(demo):
    assert json.loads(json.dumps(demo)) == demo


def test_summary(demo):
    summary = summarize(demo)
    assert summary["cases"] == 60
    assert sum(summary["by_category"].values()) == 60
    assert set(summary["by_category"]) == set(CATEGORY_WEIGHTS)
    assert summary["subtasks"] == 24
    assert sum(summary["personalities"].values()) == 60


def test_unknown_writer_name_is_refused():
    with pytest.raises(ValueError, match="unknown writer"):
        generate_case_set(2, seed=1, writer="gpt-by-name")


class TemplateBackedModel:
    """A 'model' that reads the attributes from the prompt and answers with a valid case."""

    model_id = "sim-writer"

    def complete(self, messages, tools, temperature, context):
        prompt = messages[-1].content
        raw = prompt.split("sampled attributes:\n", 1)[1].split("\n\nToday is", 1)[0]
        case = write_case(json.loads(raw), context.seed, "cXXXX")
        reply = {k: case[k] for k in ("profile", "story", "opening", "goal")}
        return Completion(text=json.dumps(reply), tool_calls=[])


def test_a_provider_can_write_the_whole_set():
    cases = generate_case_set(6, seed=9, writer=TemplateBackedModel())
    assert [c["writer"] for c in cases] == ["sim-writer"] * 6
    assert [c["case_id"] for c in cases] == ["c0001", "c0002", "c0003", "c0004", "c0005", "c0006"]
    assert all(validate_case(c) == [] for c in cases)


@pytest.mark.slow
def test_the_same_set_in_every_process():
    """Python salts str hashes per process; nothing may depend on set or hash order."""
    script = (
        "import hashlib, json;"
        "from patientagentbench.cases.generate import generate_case_set;"
        "print(hashlib.sha256(json.dumps(generate_case_set(30, 2026)).encode()).hexdigest())"
    )
    root = Path(__file__).resolve().parents[3]
    digests = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": str(salt), "PYTHONPATH": str(root)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for salt in (1, 2)
    }
    here = hashlib.sha256(json.dumps(generate_case_set(30, 2026)).encode()).hexdigest()
    assert digests == {here}
