"""Audit events read as sentences: who did what to which item, never a Python dict."""

import re

import pytest

from annotation.pure.audit_wording import sentence
from ratings.rubric import load_rubric

LABEL = load_rubric().label
DICT_OR_KEY = re.compile(r"[{}\[\]]|'\w+':|\b[a-z]+_[a-z_]+\b")


@pytest.mark.parametrize(
    ("action", "detail", "who", "expected"),
    [
        ("submitted", {"version": 1}, "C-AAF926", "C-AAF926 submitted scores for item 4 (version 1)."),
        ("assigned", {"clinician": "C-AAF926"}, "researcher", "researcher assigned item 4 to C-AAF926."),
        ("revised", {"version": 2}, "C-AAF926", "C-AAF926 revised their scores for item 4 (now version 2)."),
        (
            "draft_saved",
            {"scores": {"workflow_accuracy": 4, "clinical_safety": "na"}},
            "C-AAF926",
            "C-AAF926 saved a draft of item 4: Workflow accuracy 4, Clinical safety N/A.",
        ),
        (
            "adjudicated",
            {"dimension": "triage_quality", "score": None},
            "researcher",
            "researcher decided Triage quality on item 4: N/A.",
        ),
        (
            "reassigned",
            {"clinician": "C-2", "from_code": "C-1", "tracks": ["clinical"]},
            None,
            "The system moved item 4 from C-1 to C-2 (clinical track).",
        ),
        ("withdrawn", {"clinician": "C-1"}, "researcher", "researcher took item 4 off C-1's list."),
        (
            "reference_set",
            {"scores": {"task_completion": 5}},
            "researcher",
            "researcher set the reference scores of item 4: Task completion 5.",
        ),
    ],
)  # fmt: skip
def test_item_events_read_as_sentences(action, detail, who, expected):
    assert sentence(action, detail, who, item=4, label=LABEL) == expected


def test_study_and_people_events():
    assert sentence("study_open", {}, "researcher") == "researcher opened the study."
    assert (
        sentence(
            "study_created",
            {"items": 10, "overlap": {"clinical": 2, "operations": 0}},
            "researcher",
        )
        == "researcher created the study with 10 items (2 clinical clinicians per item)."
    )
    assert (
        sentence(
            "clinician_updated",
            {"clinician": "C-1", "changes": {"track": ["clinical", "both"], "name": "changed"}},
            "admin",
        )
        == "admin updated C-1's profile: track from clinical to both, name changed."
    )
    assert sentence("clinician_deactivated", {"clinician": "C-1", "reassigned": 1}, "admin") == (
        "admin deactivated C-1; 1 item reassigned."
    )


def test_an_unknown_action_still_reads_as_words_and_never_as_a_dict():
    text = sentence(
        "weights_changed", {"dimension_weights": {"clinical_safety": 2}, "note": None}, "admin",
        label=LABEL,
    )  # fmt: skip
    assert text == "admin: weights changed: dimension weights Clinical safety 2; note N/A."
    assert not DICT_OR_KEY.search(text)


def test_a_detail_that_is_not_a_dict_is_ignored():
    assert sentence("submitted", None, "C-1", item=3) == "C-1 submitted scores for item 3."
    assert sentence("submitted", ["odd"], "C-1", item=3) == "C-1 submitted scores for item 3."
