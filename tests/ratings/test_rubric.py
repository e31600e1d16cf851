"""The rubric file loads, says what DESIGN §5 says, and a broken copy fails naming the field."""

import copy
import json
import re

import pytest

from ratings.rubric import (
    RUBRICS_DIR,
    RubricError,
    available_versions,
    fingerprint,
    load_rubric,
    parse_rubric,
)

WEIGHTS = {
    "clinical_safety": 2.0,
    "workflow_accuracy": 1.6,
    "triage_quality": 1.4,
    "clinical_helpfulness": 1.4,
    "task_completion": 1.0,
    "conversational_quality": 0.9,
}
CLINICAL = ["clinical_safety", "triage_quality", "clinical_helpfulness"]
OPERATIONS = ["workflow_accuracy", "task_completion", "conversational_quality"]
REALISM = ["conversation_realism", "patient_profile_realism"]


@pytest.fixture
def raw():
    return json.loads((RUBRICS_DIR / "patientagentbench-v1.json").read_text())


def write(directory, data, version="1"):
    path = directory / f"patientagentbench-v{version}.json"
    path.write_text(json.dumps(data))
    return path


def test_latest_version_loads(rubric):
    assert (rubric.name, rubric.version, rubric.pass_threshold) == ("patientagentbench", "1", 3)
    assert rubric == load_rubric("patientagentbench", 1) == load_rubric(version="1")


def test_weights_and_tracks(rubric):
    assert rubric.weights == WEIGHTS
    assert [d.key for d in rubric.scored if d.track == "clinical"] == CLINICAL
    assert [d.key for d in rubric.scored if d.track == "operations"] == OPERATIONS
    assert [d.key for d in rubric.realism] == REALISM


def test_realism_is_rated_by_humans_and_offered_to_judges_as_an_experiment(rubric):
    assert {d.judges for d in rubric.realism} == {"experiment"}
    assert {d.judges for d in rubric.scored} == {"panel"}
    assert all(d.weight is None for d in rubric.realism)


def test_every_dimension_has_five_labelled_cumulative_levels(rubric):
    for dimension in rubric.dimensions:
        assert [level.score for level in dimension.levels] == [1, 2, 3, 4, 5]
        assert all(level.label and level.anchor for level in dimension.levels)
        assert dimension.definition and dimension.applicability
        for level in dimension.levels[1:]:
            assert re.search(rf"\blevel {level.score - 1}\b", level.anchor), (
                dimension.key,
                level.score,
            )
    assert [lvl.label for lvl in rubric.dimension("clinical_safety").levels] == [
        "Fail",
        "Poor",
        "Adequate",
        "Good",
        "Excellent",
    ]


def test_applicability_says_when_triage_is_not_applicable(rubric):
    assert "no symptom" in rubric.dimension("triage_quality").applicability


def test_pass_at_three(rubric):
    assert [rubric.passes(s) for s in (1, 2, 3, 4, 5)] == [False, False, True, True, True]


@pytest.mark.parametrize(
    ("tracks", "expected"),
    [
        ({"clinical"}, CLINICAL + REALISM),
        ({"operations"}, OPERATIONS + REALISM),
        (
            {"clinical", "operations"},
            [
                "clinical_safety",
                "workflow_accuracy",
                "triage_quality",
                "clinical_helpfulness",
                "task_completion",
                "conversational_quality",
            ]
            + REALISM,
        ),
        (set(), REALISM),
        ({"realism", "clinical"}, CLINICAL + REALISM),
    ],
)
def test_dimensions_for_tracks(rubric, tracks, expected):
    assert [d.key for d in rubric.dimensions_for(tracks)] == expected


def test_dimensions_for_an_unknown_track_fails(rubric):
    with pytest.raises(RubricError, match="surgery"):
        rubric.dimensions_for({"surgery"})


def test_latest_version_is_chosen_by_integer(tmp_path, raw):
    for version in ("2", "10", "9"):
        write(tmp_path, {**raw, "version": version}, version)
    assert available_versions(directory=tmp_path) == [2, 9, 10]
    assert load_rubric(directory=tmp_path).version == "10"


def test_missing_rubric(tmp_path):
    with pytest.raises(RubricError, match="no rubric named"):
        load_rubric(directory=tmp_path)
    with pytest.raises(RubricError, match="patientagentbench-v7.json"):
        load_rubric(version=7)


def test_file_name_and_content_must_agree(tmp_path, raw):
    write(tmp_path, raw, version="2")
    with pytest.raises(RubricError, match="file name says patientagentbench v2"):
        load_rubric(version=2, directory=tmp_path)


def test_invalid_json_is_a_rubric_error(tmp_path):
    (tmp_path / "patientagentbench-v1.json").write_text("{not json")
    with pytest.raises(RubricError, match="not valid JSON"):
        load_rubric(directory=tmp_path)


def dimension(raw, key):
    return next(d for d in raw["dimensions"] if d["key"] == key)


def drop_dimension(raw, key):
    raw["dimensions"] = [d for d in raw["dimensions"] if d["key"] != key]


BREAKAGES = [
    (lambda r: dimension(r, "triage_quality").update(weight=0), r"\(triage_quality\)\.weight"),
    (lambda r: dimension(r, "task_completion").update(weight="1"), r"task_completion\)\.weight"),
    (lambda r: dimension(r, "clinical_safety").update(track="legal"), r"safety\)\.track"),
    (lambda r: dimension(r, "conversation_realism").update(weight=1.0), r"realism\)\.weight"),
    (lambda r: dimension(r, "clinical_safety")["levels"].pop(), r"safety\)\.levels must"),
    (
        lambda r: dimension(r, "clinical_safety")["levels"][2].update(score=4),
        r"safety\)\.levels\[2\]\.score must be 3",
    ),
    (
        lambda r: dimension(r, "workflow_accuracy")["levels"][3].update(anchor="Books well."),
        r"workflow_accuracy\)\.levels\[3\]\.anchor must build on level 3",
    ),
    (
        lambda r: dimension(r, "workflow_accuracy")["levels"][0].update(label=""),
        r"levels\[0\]\.label",
    ),
    (lambda r: dimension(r, "triage_quality").pop("definition"), r"triage_quality\)\.definition"),
    (lambda r: dimension(r, "triage_quality").update(judges="nobody"), r"\)\.judges"),
    (lambda r: r["dimensions"].append(r["dimensions"][0]), r"repeat the key"),
    (lambda r: r["dimensions"][0].pop("key"), r"dimensions\[0\]\.key"),
    (lambda r: r.update(pass_threshold=6), r"pass_threshold"),
    (lambda r: r.update(version="one"), r"\bversion must be a whole number"),
    (lambda r: r.pop("name"), r"rubric: name is required"),
]


@pytest.mark.parametrize(("breakage", "field"), BREAKAGES)
def test_errors_name_the_field(raw, breakage, field):
    breakage(raw)
    with pytest.raises(RubricError, match=field):
        parse_rubric(raw)


def test_one_track_alone_is_a_rubric_but_realism_alone_is_not(raw):
    for d in raw["dimensions"]:
        if d["track"] == "operations":
            d["track"] = "clinical"
    assert {d.track for d in parse_rubric(raw).scored} == {"clinical"}
    raw["dimensions"] = [d for d in raw["dimensions"] if d["track"] == "realism"]
    with pytest.raises(RubricError, match=r"dimensions need a scored dimension"):
        parse_rubric(raw)


def test_errors_from_a_file_name_the_file(tmp_path, raw):
    dimension(raw, "triage_quality")["weight"] = -1
    write(tmp_path, raw)
    with pytest.raises(RubricError, match=r"^patientagentbench-v1\.json: .*triage_quality"):
        load_rubric(directory=tmp_path)


def test_fingerprint_changes_with_text_not_with_formatting(tmp_path, raw, rubric):
    assert rubric.fingerprint == fingerprint(raw)
    path = tmp_path / "patientagentbench-v1.json"
    path.write_text(json.dumps(raw, indent=7, sort_keys=True))
    assert load_rubric(directory=tmp_path).fingerprint == rubric.fingerprint

    edited = copy.deepcopy(raw)
    dimension(edited, "clinical_safety")["levels"][2]["anchor"] += " Also, be kind."
    path.write_text(json.dumps(edited))
    assert load_rubric(directory=tmp_path).fingerprint != rubric.fingerprint


def test_the_loader_imports_no_django():
    import ast
    import inspect

    import ratings.rubric

    tree = ast.parse(inspect.getsource(ratings.rubric))
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not any(name and name.startswith("django") for name in imported)


def test_label_reads_a_dimension_key_as_its_label(rubric):
    assert rubric.label("workflow_accuracy") == "Workflow accuracy"
    assert rubric.label("patient_profile_realism") == "Patient profile realism"
    # A key this version lacks (an older rubric's) still reads as words, never snake_case.
    assert rubric.label("bedside_manner") == "Bedside manner"
