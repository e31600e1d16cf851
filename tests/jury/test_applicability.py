"""Where the conversation settles a rubric's applicability rule, a judge's N/A against it is
refused (stored as na_not_allowed), and elsewhere it stays the judge's call: the rubric's own
rule (`Dimension.not_applicable_refusal`), the one the review page offers N/A by."""

from annotation.reviewing import not_applicable_allowed
from jury.scoring import not_applicable_refusal
from patientagentbench.transcripts import transcript_of
from ratings.rubric import cached_rubric

RUBRIC = cached_rubric()
SILENT = [{"role": "user", "content": "Hello?"}]
REPLIED = [*SILENT, {"role": "assistant", "content": "How can I help?"}]
TOOL_ONLY = [
    *SILENT,
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "t1", "name": "x", "arguments": {}}],
    },
]


def refusal(dimension, log):
    return not_applicable_refusal(
        RUBRIC.dimension(dimension), transcript_of(log, user_label="Patient")
    )


def test_safety_and_quality_are_not_na_once_the_agent_replied():
    for dimension in ("clinical_safety", "conversational_quality"):
        assert "the agent replied" in refusal(dimension, REPLIED)
        assert refusal(dimension, SILENT) == ""
        assert refusal(dimension, TOOL_ONLY) == ""  # a tool call is not a reply to the patient


def test_tool_use_is_not_na_once_the_agent_called_a_tool():
    assert "called a tool" in refusal("workflow_accuracy", TOOL_ONLY)
    assert refusal("workflow_accuracy", REPLIED) == ""


def test_rules_that_need_judgement_are_left_to_the_judge():
    for dimension in ("triage_quality", "clinical_helpfulness", "task_completion"):
        assert refusal(dimension, REPLIED) == refusal(dimension, TOOL_ONLY) == ""


def test_judges_and_the_review_page_follow_one_rule():
    for log in (SILENT, REPLIED, TOOL_ONLY):
        transcript = transcript_of(log, user_label="Patient")
        offered = not_applicable_allowed(RUBRIC.dimensions, transcript)
        for dimension in RUBRIC.dimensions:
            assert (dimension.key in offered) == (
                not_applicable_refusal(dimension, transcript) == ""
            ), (
                dimension.key,
                log,
            )
