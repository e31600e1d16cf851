"""PatientAgentBench's evaluations.json: per-judge verdicts read from the golden sample, and a
clear error naming the record and field for anything else (nothing partial)."""

import copy
import json

import pytest

from jury.evaluations_import import (
    DIMENSION_MAP,
    EvaluationsFormatError,
    ImportedVerdict,
    parse_evaluations,
    read_evaluations,
)
from patientagentbench.interchange.langchain import parse_conversations
from ratings.rubric import load_rubric
from tests.patientagentbench.analysis.paths import GOLDEN

# The project's copy of ../shared/golden/patientagentbench-sample (tests run without ../shared).
SAMPLE = GOLDEN / "patientagentbench-sample"


@pytest.fixture
def data():
    return json.loads((SAMPLE / "evaluations.json").read_text())


def test_the_golden_sample(data):
    verdicts = read_evaluations(SAMPLE / "evaluations.json", SAMPLE / "conversations.json")
    assert len(verdicts) == 2 * 2 * 6  # conversations x judges x dimensions
    assert {v.status for v in verdicts} == {"ok"}
    first = verdicts[0]
    assert first == ImportedVerdict(
        conversation="c0a1f3e2-0001",
        judge="evaluation_0",
        dimension="task_completion",
        score=5,
        status="ok",
        rationale="Short rationale.",
        raw='{"score": 5, "explanation": "Short rationale."}',
    )
    scores = {(v.conversation, v.judge, v.dimension): v.score for v in verdicts}
    assert scores[("c0a1f3e2-0002", "evaluation_1", "clinical_safety")] == 4
    assert scores[("c0a1f3e2-0001", "evaluation_1", "workflow_accuracy")] == 5
    # Every verdict's score is what the file's rubric_scores summary says for that judge.
    for record in data:
        for judge in ("evaluation_0", "evaluation_1"):
            for dimension, score in record[judge]["rubric_scores"].items():
                assert scores[(record["case_id"], judge, dimension)] == score


def test_keys_match_the_conversations_importer():
    conversations = json.loads((SAMPLE / "conversations.json").read_text())
    keys = {c["case_id"] for c in parse_conversations(conversations)}
    verdicts = read_evaluations(SAMPLE / "evaluations.json")
    assert {v.conversation for v in verdicts} == keys


def test_dimensions_map_onto_the_rubric():
    assert set(DIMENSION_MAP.values()) == {d.key for d in load_rubric().scored}


def test_judge_names_can_be_given(data):
    verdicts = parse_evaluations(data, judge_names={0: "gpt-judge", 1: "claude-judge"})
    assert {v.judge for v in verdicts} == {"gpt-judge", "claude-judge"}


def test_null_score_is_unparseable_and_na_is_not_applicable(data):
    results = data[0]["evaluation_0"]["rubric_results"]
    results["triage_quality"]["score"] = None
    results["triage_quality"]["raw_response"] = "I cannot score this."
    results["clinical_helpfulness"]["score"] = "N/A"
    results["workflow_accuracy"]["not_applicable"] = True
    by_dimension = {
        v.dimension: v
        for v in parse_evaluations(data)
        if (v.conversation, v.judge) == ("c0a1f3e2-0001", "evaluation_0")
    }
    triage = by_dimension["triage_quality"]
    assert (triage.status, triage.score, triage.raw) == (
        "unparseable",
        None,
        "I cannot score this.",
    )
    assert by_dimension["clinical_helpfulness"].status == "not_applicable"
    assert (by_dimension["workflow_accuracy"].status, by_dimension["workflow_accuracy"].score) == (
        "not_applicable",
        None,
    )


def breaks(data, path, value):
    broken = copy.deepcopy(data)
    node = broken
    for key in path[:-1]:
        node = node[key]
    if value is DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return broken


DELETE = object()
RESULT = (1, "evaluation_1", "rubric_results", "clinical_safety")


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ((1, "case_id"), DELETE, "record 1, field 'case_id'"),
        ((1, "case_id"), "c0a1f3e2-0001", "record 1, field 'case_id': c0a1f3e2-0001 repeats"),
        ((1, "evaluation_0"), DELETE, None),  # still has evaluation_1: fine
        ((1, "evaluation_1", "rubric_results"), {}, "evaluation_1.rubric_results'"),
        ((1, "evaluation_1"), "x", "evaluation_1.rubric_results'"),
        ((*RESULT, "score"), 7, "evaluation_1.rubric_results.clinical_safety.score': an integer"),
        ((*RESULT, "score"), 3.5, "clinical_safety.score'"),
        ((*RESULT, "score"), True, "clinical_safety.score'"),
        ((*RESULT, "score"), "high", "clinical_safety.score'"),
        ((*RESULT, "explanation"), 4, "clinical_safety.explanation': must be text"),
        (
            (1, "evaluation_1", "rubric_results", "empathy"),
            {"score": 4},
            "unknown dimension 'empathy'",
        ),
        (RESULT, [4], "clinical_safety': must be an object"),
        ((0,), "not a record", "record 0: must be an object"),
    ],
)
def test_format_errors_name_the_record_and_field(data, path, value, message):
    broken = breaks(data, path, value)
    if message is None:
        assert parse_evaluations(broken)
        return
    with pytest.raises(EvaluationsFormatError) as error:
        parse_evaluations(broken)
    assert message in str(error.value)
    assert str(error.value).startswith(f"record {path[0]}")


def test_a_record_without_any_judge_is_refused(data):
    for key in ("evaluation_0", "evaluation_1"):
        del data[1][key]
    with pytest.raises(EvaluationsFormatError, match=r"record 1 \(c0a1f3e2-0002\).*evaluation_0"):
        parse_evaluations(data)


def test_whole_files_are_refused_clearly(tmp_path, data):
    with pytest.raises(EvaluationsFormatError, match="non-empty JSON array"):
        parse_evaluations({"case_id": "x"})
    with pytest.raises(EvaluationsFormatError, match="non-empty JSON array"):
        parse_evaluations([])
    bad = tmp_path / "evaluations.json"
    bad.write_text("[{")
    with pytest.raises(
        EvaluationsFormatError, match=r"evaluations.json: not valid JSON \(.* at line 1, column 3\)"
    ):
        read_evaluations(bad)
    with pytest.raises(EvaluationsFormatError, match="c0a1f3e2-0002 is not in conversations"):
        parse_evaluations(data, conversation_keys={"c0a1f3e2-0001"})
