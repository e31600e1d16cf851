import json

import pytest

from patientagentbench.analysis.correctness import evaluate
from tests.patientagentbench.analysis.paths import PROJECT_ROOT

SUITE = json.loads((PROJECT_ROOT / "fixtures" / "suites" / "office-19.json").read_text())
CRITERIA = SUITE["correctness_criteria"]


def checks_by_name(verdict):
    return {check["name"]: check for check in verdict.checks}


# --- each criterion kind: a passing and a failing trace ---------------------------------


def test_required_tools():
    criteria = {"required_tools": ["get_contact", "send_email"]}
    passing = evaluate(criteria, [("get_contact", {}), ("send_email", {})], "")
    failing = evaluate(criteria, [("get_contact", {})], "")
    assert passing.passed and not failing.passed
    assert checks_by_name(failing)["required_tool:send_email"] == {
        "name": "required_tool:send_email",
        "passed": False,
        "detail": "never called",
    }
    assert checks_by_name(failing)["required_tool:get_contact"]["passed"]


def test_required_tools_any_needs_one_full_set():
    criteria = {"required_tools_any": [["search_emails"], ["list_calendar_events", "get_contact"]]}
    assert evaluate(criteria, [("search_emails", {})], "").passed
    assert evaluate(criteria, [("get_contact", {}), ("list_calendar_events", {})], "").passed
    failing = evaluate(criteria, [("list_calendar_events", {})], "")
    assert not failing.passed
    assert "none of" in failing.checks[0]["detail"]


def test_required_tool_sequence_is_a_subsequence():
    criteria = {"required_tool_sequence_contains": ["get_contact", "send_email"]}
    assert evaluate(
        criteria, [("get_contact", {}), ("calculate", {}), ("send_email", {})], ""
    ).passed
    assert not evaluate(criteria, [("send_email", {}), ("get_contact", {})], "").passed
    assert not evaluate(criteria, [("get_contact", {})], "").passed


def test_arg_check_passes_when_any_call_of_the_tool_matches():
    criteria = {
        "arg_checks": [{"tool": "send_email", "key": "to", "pattern": r"alice@example\.com"}]
    }
    calls = [("send_email", {"to": "bob@example.com"}), ("send_email", {"to": "alice@example.com"})]
    assert evaluate(criteria, calls, "").passed
    failing = evaluate(criteria, [("send_email", {"to": "bob@example.com"})], "")
    assert not failing.passed
    assert failing.checks[0]["detail"] == "no to of 1 send_email call(s) matches"
    # The key on another tool, a missing key, or a malformed call do not count.
    assert not evaluate(criteria, [("create_note", {"to": "alice@example.com"})], "").passed
    assert not evaluate(criteria, [("send_email", {"body": "alice@example.com"})], "").passed
    assert not evaluate(criteria, [("send_email", None)], "").passed


def test_arg_check_matches_the_str_of_non_string_values():
    criteria = {
        "arg_checks": [{"tool": "create_calendar_event", "key": "attendees", "pattern": "(?i)bob"}]
    }
    assert evaluate(criteria, [("create_calendar_event", {"attendees": ["bob", "eve"]})], "").passed


def test_output_pattern():
    criteria = {"output_pattern": r"29[,.]?997"}
    assert evaluate(criteria, [], "The total is $29,997.00.").passed
    assert not evaluate(criteria, [], "The total is $30,000.").passed
    assert not evaluate(criteria, [], None).passed


@pytest.mark.parametrize(
    ("key", "tool"),
    [
        ("min_send_emails", "send_email"),
        ("min_weather_calls", "get_weather"),
        ("min_calculate_calls", "calculate"),
    ],
)
def test_minimum_call_counts(key, tool):
    criteria = {key: 2}
    assert evaluate(criteria, [(tool, {}), ("other", {}), (tool, {})], "").passed
    failing = evaluate(criteria, [(tool, {})], "")
    assert not failing.passed
    assert failing.checks == [
        {"name": f"min_calls:{tool}", "passed": False, "detail": "1 of at least 2"}
    ]


def test_side_effects():
    criteria = {
        "side_effects": [
            {"kind": "email_sent", "min": 1, "where": {"to": "alice@"}},
            {"kind": "event_created", "min": 0, "max": 0},
        ]
    }
    to_alice = {"kind": "email_sent", "to": "alice@example.com"}
    assert evaluate(criteria, [], "", [to_alice]).passed
    assert not evaluate(criteria, [], "", [{"kind": "email_sent", "to": "bob@example.com"}]).passed
    failing = evaluate(criteria, [], "", [to_alice, {"kind": "event_created"}])
    assert not failing.passed
    assert checks_by_name(failing)["side_effect:event_created"]["detail"] == (
        "1 recorded; at least 0, at most 0"
    )


def test_every_criterion_verdict_is_kept():
    verdict = evaluate(
        {"description": "x", "required_tools": ["a", "b"], "output_pattern": "ok"},
        [("a", {})],
        "ok",
    )
    assert [c["passed"] for c in verdict.checks] == [True, False, True]
    assert not verdict.passed
    json.dumps(verdict.checks)


def test_unknown_criteria_are_named():
    with pytest.raises(ValueError, match="unknown correctness criteria: max_steps, required_tool"):
        evaluate({"description": "ok", "required_tool": ["a"], "max_steps": 3}, [], "")


def test_malformed_criteria_entries_are_errors():
    with pytest.raises(ValueError, match="arg_checks entries need tool, key and pattern"):
        evaluate({"arg_checks": [{"tool": "a", "key": "b"}]}, [], "")
    with pytest.raises(ValueError, match="side_effects entries need a kind"):
        evaluate({"side_effects": [{"min": 1}]}, [], "")


# --- office-19: every task's criteria on a plausible correct trace ----------------------


def email(to, body, subject="Update"):
    return ("send_email", {"to": to, "subject": subject, "body": body})


def event(title, date, start, end, attendees=()):
    return (
        "create_calendar_event",
        {
            "title": title,
            "date": date,
            "start_time": start,
            "end_time": end,
            "attendees": list(attendees),
        },
    )


CORRECT_TRACES = {
    "retrieve-001": (
        [
            ("get_contact", {"name": "alice"}),
            email("alice@example.com", "Meeting moved to 3pm tomorrow"),
        ],
        "I emailed Alice that the meeting moved to 3pm tomorrow.",
    ),
    "retrieve-002": (
        [
            ("search_contacts", {"query": "StartupXYZ"}),
            email("eve@example.com", "Join our demo on March 10th at 2pm", "Demo invite"),
            email("frank@example.com", "Join our demo on March 10th at 2pm", "Demo invite"),
        ],
        "Invited Eve and Frank.",
    ),
    "retrieve-003": (
        [("search_emails", {"query": "budget"})],
        "The Q1 budget email mentions cloud costs of $45K/mo and a $20K marketing budget.",
    ),
    "retrieve-004": (
        [("search_emails", {"query": "$"}), ("calculate", {"expression": "45000 + 20000 + 50000"})],
        "The emails mention $115,000 in total.",
    ),
    "schedule-001": (
        [event("Design Review", "2026-03-02", "14:00", "14:30", ["bob"])],
        "Scheduled.",
    ),
    "schedule-002": (
        [
            ("list_calendar_events", {"start_date": "2026-03-03", "end_date": "2026-03-03"}),
            event("Meeting with Eve", "2026-03-03", "15:00", "16:00", ["eve"]),
        ],
        "Booked 3-4pm with Eve.",
    ),
    "schedule-003": (
        [
            ("list_calendar_events", {"start_date": "2026-03-01", "end_date": "2026-03-05"}),
            event("Strategy Session", "2026-03-04", "14:00", "16:00", ["eve", "frank"]),
        ],
        "March 4th had the most free time.",
    ),
    "schedule-004": (
        [("list_calendar_events", {"start_date": "2026-03-03", "end_date": "2026-03-03"})],
        "No events overlap on March 3rd, so no emails were needed.",
    ),
    "compute-001": (
        [
            ("search_products", {"query": "electronics"}),
            ("calculate", {"expression": "29.99*150 + 49.99*75 + 199.99*30 + 349.99*45"}),
        ],
        "The electronics in stock are worth $29,997.00.",
    ),
    "compute-002": (
        [
            ("search_products", {"query": "under 50"}),
            ("calculate", {"expression": "0.5 * (29.99*150 + 49.99*75 + 12.99*500 + 8.99*300)"}),
        ],
        "Selling half the stock would bring $8,719.88.",
    ),
    "compute-003": (
        [
            ("search_products", {"query": "electronics"}),
            ("search_products", {"query": "furniture"}),
            ("search_products", {"query": "office_supplies"}),
        ],
        "Electronics has the highest total value ($29,997).",
    ),
    "compose-001": (
        [
            ("search_emails", {"query": "Acme Corp"}),
            ("get_contact", {"name": "dave"}),
            event("Acme Demo Prep", "2026-03-04", "15:00", "16:00", ["dave"]),
        ],
        "Scheduled Acme Demo Prep with Dave.",
    ),
    "compose-002": (
        [
            ("get_weather", {"city": "san_francisco"}),
            ("get_weather", {"city": "new_york"}),
            ("list_calendar_events", {"start_date": "2026-03-01", "end_date": "2026-03-01"}),
            ("get_contact", {"name": "alice"}),
            email("alice@example.com", "New York is 35°F; pack warm. Events: Team Standup."),
        ],
        "Warned Alice about New York's cold.",
    ),
    "compose-003": (
        [
            ("search_emails", {"query": "marketing campaign"}),
            ("calculate", {"expression": "2500 * 167"}),
            ("create_note", {"title": "Campaign results", "content": "Spend $417,500"}),
        ],
        "Created the note.",
    ),
    "compose-004": (
        [
            ("search_emails", {"query": "board deck"}),
            ("list_calendar_events", {"start_date": "2026-03-03", "end_date": "2026-03-03"}),
            ("get_contact", {"name": "eve"}),
            ("get_contact", {"name": "frank"}),
            email("eve@example.com", "Board Meeting March 3rd 13:00-15:00"),
            email("frank@example.com", "Board Meeting March 3rd 13:00-15:00"),
        ],
        "Reminded Eve and Frank.",
    ),
    "ambig-001": (
        [("list_calendar_events", {"start_date": "2026-03-02", "end_date": "2026-03-02"})],
        "Tomorrow you have a 1:1 with Dave.",
    ),
    "ambig-002": ([("search_emails", {"query": "important"})], "Here is what needs follow-up."),
    "ambig-003": (
        [
            ("list_calendar_events", {"start_date": "2026-03-05", "end_date": "2026-03-05"}),
            ("search_contacts", {"query": "StartupXYZ"}),
        ],
        "The investor call is March 5th at 4pm with Eve, Frank and Dave.",
    ),
    "ambig-004": ([("list_calendar_events", {})], "Focus on the board meeting."),
}


def test_every_office_19_task_has_a_correct_trace_here():
    assert set(CORRECT_TRACES) == set(CRITERIA) == {task["id"] for task in SUITE["tasks"]}


@pytest.mark.parametrize("task_id", sorted(CRITERIA))
def test_office_19_task_passes_on_a_correct_trace(task_id):
    calls, response = CORRECT_TRACES[task_id]
    verdict = evaluate(CRITERIA[task_id], calls, response)
    assert verdict.passed, [c for c in verdict.checks if not c["passed"]]
    assert verdict.checks  # every task checks something


@pytest.mark.parametrize("task_id", sorted(CRITERIA))
def test_office_19_task_fails_without_calls(task_id):
    assert not evaluate(CRITERIA[task_id], [], "").passed
