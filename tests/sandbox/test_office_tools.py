"""The office-19 world: each tool's answers and errors, side effects, isolation, determinism."""

import copy
import json
from pathlib import Path

import pytest

from sandbox.office import OFFICE_TOOLS, OfficeWorld

SUITE_PATH = Path(__file__).resolve().parents[2] / "fixtures" / "suites" / "office-19.json"


@pytest.fixture(scope="module")
def suite():
    return json.loads(SUITE_PATH.read_text())


@pytest.fixture
def office_world(suite):
    return OfficeWorld.from_suite(suite)


def ok(office_world, tool, /, **arguments):
    result = office_world.call(tool, arguments)
    assert result.status == "ok", result.content
    return result.content


def error(office_world, tool, /, **arguments):
    result = office_world.call(tool, arguments)
    assert result.status == "error", result.content
    return result.content["error"]


def test_every_suite_tool_is_implemented(suite, office_world):
    names = [tool["name"] for tool in suite["tools"]]
    assert sorted(names) == sorted(OFFICE_TOOLS)
    assert office_world.tool_schemas() == suite["tools"]


# --- contacts -----------------------------------------------------------------------------------


def test_search_contacts_by_company_role_and_name(office_world):
    assert [c["id"] for c in ok(office_world, "search_contacts", query="startupxyz")] == [
        "eve",
        "frank",
    ]
    assert [c["id"] for c in ok(office_world, "search_contacts", query="ENGINEER")] == [
        "alice",
        "henry",
    ]
    assert [c["id"] for c in ok(office_world, "search_contacts", query="Kim")] == ["grace"]


def test_search_contacts_returns_full_records(office_world):
    (eve,) = ok(office_world, "search_contacts", query="CEO")
    assert eve["email"] == "eve@example.com"


def test_search_contacts_without_a_match_is_empty(office_world):
    assert ok(office_world, "search_contacts", query="Nobody Inc") == []


@pytest.mark.parametrize("name", ["alice", "Alice", " ALICE ", "Alice Chen", "alice@example.com"])
def test_get_contact_is_lenient_about_surface_form(office_world, name):
    contact = ok(office_world, "get_contact", name=name)
    assert contact["id"] == "alice"
    assert contact["email"] == "alice@example.com"


def test_get_contact_unknown_names_the_known_ones(office_world):
    message = error(office_world, "get_contact", name="zed")
    assert "No contact named 'zed'" in message
    assert "alice" in message and "henry" in message


# --- calendar -----------------------------------------------------------------------------------


def event_ids(events):
    return [event["id"] for event in events]


def test_list_calendar_events_all(office_world):
    assert len(ok(office_world, "list_calendar_events")) == 8


def test_list_calendar_events_date_range_is_inclusive_and_in_time_order(office_world):
    events = ok(
        office_world, "list_calendar_events", start_date="2026-03-03", end_date="2026-03-03"
    )
    assert event_ids(events) == ["evt-005", "evt-004"]
    events = ok(
        office_world, "list_calendar_events", start_date="2026-03-01", end_date="2026-03-02"
    )
    assert event_ids(events) == ["evt-001", "evt-002", "evt-003"]


def test_list_calendar_events_open_ended_ranges(office_world):
    assert event_ids(ok(office_world, "list_calendar_events", start_date="2026-03-05")) == [
        "evt-008",
        "evt-007",
    ]
    assert event_ids(ok(office_world, "list_calendar_events", end_date="2026-03-01")) == [
        "evt-001",
        "evt-002",
    ]


def test_list_calendar_events_null_filters_mean_none(office_world):
    assert len(office_world.call("list_calendar_events", {"start_date": None}).content) == 8


@pytest.mark.parametrize("bad", ["March 3", "2026/03/03", "03-03-2026", "2026-02-30", "2026-3-3"])
def test_list_calendar_events_bad_date_is_an_error(office_world, bad):
    message = error(office_world, "list_calendar_events", start_date=bad)
    assert message == f"start_date must be a date in YYYY-MM-DD format, got {bad!r}"


def test_list_calendar_events_reversed_range_is_an_error(office_world):
    message = error(
        office_world, "list_calendar_events", start_date="2026-03-03", end_date="2026-03-02"
    )
    assert "after end_date" in message


def design_review(**overrides):
    return {
        "title": "Design Review",
        "date": "2026-03-02",
        "start_time": "14:00",
        "end_time": "14:30",
        "attendees": ["bob"],
        **overrides,
    }


def test_create_calendar_event_adds_an_event_and_logs_it(office_world):
    result = ok(office_world, "create_calendar_event", **design_review())
    event = {
        "id": "evt-009",
        "title": "Design Review",
        "date": "2026-03-02",
        "start": "14:00",
        "end": "14:30",
        "attendees": ["bob"],
    }
    assert result == {"status": "created", "event": event, "conflicts": []}
    assert office_world.side_effects == [{"kind": "event_created", **event}]
    assert event in ok(
        office_world, "list_calendar_events", start_date="2026-03-02", end_date="2026-03-02"
    )
    assert office_world.final_state()["created_events"] == [event]


def test_created_event_ids_keep_counting(office_world):
    ok(office_world, "create_calendar_event", **design_review())
    second = ok(office_world, "create_calendar_event", **design_review(title="Follow-up"))
    assert second["event"]["id"] == "evt-010"


@pytest.mark.parametrize(
    ("start", "end", "stored"),
    [
        ("9:00", "9:30", ("09:00", "09:30")),
        ("2pm", "3 PM", ("14:00", "15:00")),
        ("2:30 p.m.", "15:00", ("14:30", "15:00")),
        ("12am", "12:30am", ("00:00", "00:30")),
        ("11:30 am", "12pm", ("11:30", "12:00")),
    ],
)
def test_create_calendar_event_accepts_common_time_forms(office_world, start, end, stored):
    event = ok(
        office_world, "create_calendar_event", **design_review(start_time=start, end_time=end)
    )
    assert (event["event"]["start"], event["event"]["end"]) == stored


def test_create_calendar_event_stores_known_attendees_as_contact_keys(office_world):
    attendees = ["Eve", "frank@example.com", "Frank Lee", "John Doe", " "]
    event = ok(office_world, "create_calendar_event", **design_review(attendees=attendees))["event"]
    assert event["attendees"] == ["eve", "frank", "John Doe"]


def test_create_calendar_event_without_attendees(office_world):
    arguments = design_review()
    del arguments["attendees"]
    assert ok(office_world, "create_calendar_event", **arguments)["event"]["attendees"] == []


def test_create_calendar_event_reports_conflicts(office_world):
    result = ok(
        office_world,
        "create_calendar_event",
        **design_review(date="2026-03-03", start_time="11:00", end_time="13:30"),
    )
    assert result["conflicts"] == ["evt-004", "evt-005"]


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"date": "March 2"}, "date must be a date in YYYY-MM-DD format"),
        ({"start_time": "14"}, "start_time must be a time like 14:00"),
        ({"start_time": "25:00"}, "start_time must be a time"),
        ({"end_time": "13pm"}, "end_time must be a time"),
        ({"end_time": "14:61"}, "end_time must be a time"),
        ({"end_time": "13:00"}, "end_time 13:00 must be after start_time 14:00"),
        ({"end_time": "14:00"}, "must be after"),
        ({"attendees": "bob"}, "argument 'attendees' must be an array"),
    ],
)
def test_create_calendar_event_bad_arguments_change_nothing(office_world, overrides, words):
    assert words in error(office_world, "create_calendar_event", **design_review(**overrides))
    assert office_world.side_effects == []
    assert len(office_world.final_state()["calendar"]) == 8


def test_create_calendar_event_requires_its_arguments(office_world):
    message = error(office_world, "create_calendar_event", title="Sync")
    for key in ("date", "start_time", "end_time"):
        assert f"missing required argument '{key}'" in message


# --- email --------------------------------------------------------------------------------------


def test_send_email_records_the_email(office_world):
    result = ok(
        office_world, "send_email", to="alice@example.com", subject="Hi", body="Meeting at 3pm"
    )
    email = {"id": "sent-001", "to": "alice@example.com", "subject": "Hi", "body": "Meeting at 3pm"}
    assert result == {"status": "sent", "email": email}
    assert office_world.final_state()["sent_emails"] == [email]
    assert office_world.side_effects == [{"kind": "email_sent", **email}]


def test_each_sent_email_gets_its_own_id(office_world):
    ok(office_world, "send_email", to="eve@example.com", subject="Demo", body="March 10")
    ok(office_world, "send_email", to="frank@example.com", subject="Demo", body="March 10")
    assert [e["id"] for e in office_world.final_state()["sent_emails"]] == ["sent-001", "sent-002"]
    assert [e["kind"] for e in office_world.side_effects] == ["email_sent", "email_sent"]


@pytest.mark.parametrize(
    "to", ["Alice", "alice@example", "alice example.com", "a@example.com, b@example.com", ""]
)
def test_send_email_needs_one_valid_address(office_world, to):
    assert "'to' must be one email address" in error(
        office_world, "send_email", to=to, subject="s", body="b"
    )
    assert office_world.final_state()["sent_emails"] == []
    assert office_world.side_effects == []


def test_search_emails_matches_subject_or_body_in_any_case(office_world):
    assert [e["id"] for e in ok(office_world, "search_emails", query="BUDGET")] == ["email-001"]
    assert [e["id"] for e in ok(office_world, "search_emails", query="acme")] == ["email-002"]
    assert [e["id"] for e in ok(office_world, "search_emails", query="linkedin")] == ["email-004"]


def test_search_emails_without_a_match_is_empty(office_world):
    assert ok(office_world, "search_emails", query="kubernetes") == []


def test_search_emails_does_not_return_sent_mail(office_world):
    ok(office_world, "send_email", to="bob@example.com", subject="Budget", body="budget")
    assert len(ok(office_world, "search_emails", query="budget")) == 1


# --- products, calculate, weather, notes --------------------------------------------------------


def test_search_products_by_category_and_name(office_world):
    electronics = ok(office_world, "search_products", query="electronics")
    assert [p["id"] for p in electronics] == ["prod-001", "prod-002", "prod-003", "prod-008"]
    assert [p["id"] for p in ok(office_world, "search_products", query="widget")] == [
        "prod-001",
        "prod-002",
    ]
    assert [p["id"] for p in ok(office_world, "search_products", query="Office Supplies")] == [
        "prod-006",
        "prod-007",
    ]


def test_search_products_without_a_match_is_empty(office_world):
    assert ok(office_world, "search_products", query="banana") == []


def test_calculate(office_world):
    result = ok(office_world, "calculate", expression="(29.99 * 150) + (49.99 * 75)")
    assert result == {"expression": "(29.99 * 150) + (49.99 * 75)", "result": 8247.75}


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        ("9**9**9**9", "too large"),
        ("__import__('os').system('true')", "not allowed"),
        ("1/0", "Division by zero"),
        ("1+" * 5000, "too long"),
    ],
)
def test_calculate_refusals_are_tool_errors(office_world, expression, words):
    assert words in error(office_world, "calculate", expression=expression)


def test_calculate_needs_text(office_world):
    assert "must be a string" in error(office_world, "calculate", expression=2 + 2)


@pytest.mark.parametrize(
    "city", ["san_francisco", "San Francisco", "SAN-FRANCISCO", "San Francisco, CA"]
)
def test_get_weather_is_lenient_about_the_city_name(office_world, city):
    weather = ok(office_world, "get_weather", city=city)
    assert weather == {
        "city": "san_francisco",
        "temp_f": 58,
        "condition": "Partly Cloudy",
        "humidity": 72,
        "wind_mph": 12,
    }


def test_get_weather_unknown_city_names_the_known_ones(office_world):
    message = error(office_world, "get_weather", city="Paris")
    assert "No weather for 'Paris'" in message
    assert "new_york" in message


def test_create_note_records_the_note(office_world):
    result = ok(office_world, "create_note", title="Campaign", content="Spend: $417,500")
    note = {"id": "note-001", "title": "Campaign", "content": "Spend: $417,500"}
    assert result == {"status": "created", "note": note}
    assert office_world.final_state()["notes"] == [note]
    assert office_world.side_effects == [{"kind": "note_created", **note}]


def test_create_note_requires_content(office_world):
    assert "missing required argument 'content'" in error(
        office_world, "create_note", title="Empty"
    )


# --- the world as a whole -----------------------------------------------------------------------


def test_side_effects_across_tools_are_in_call_order(office_world):
    ok(office_world, "create_note", title="a", content="b")
    ok(office_world, "search_contacts", query="alice")
    ok(office_world, "send_email", to="alice@example.com", subject="s", body="b")
    ok(office_world, "create_calendar_event", **design_review())
    kinds = [effect["kind"] for effect in office_world.side_effects]
    assert kinds == ["note_created", "email_sent", "event_created"]


def test_unknown_tool_and_malformed_arguments(office_world):
    assert "Unknown tool 'delete_contact'" in error(office_world, "delete_contact")
    assert office_world.call("get_contact", None).status == "error"
    message = error(office_world, "get_contact", name="alice", verbose=True)
    assert "unknown argument 'verbose'" in message


def test_final_state_holds_the_environment_and_what_the_agent_did(office_world, suite):
    state = office_world.final_state()
    assert set(state) == {*suite["environment"], "sent_emails", "notes", "created_events"}
    assert state["contacts"] == suite["environment"]["contacts"]
    assert state["sent_emails"] == state["notes"] == state["created_events"] == []
    json.dumps(state)


def test_worlds_from_the_same_suite_share_nothing(suite):
    untouched = copy.deepcopy(suite)
    first, second = OfficeWorld.from_suite(suite), OfficeWorld.from_suite(suite)
    ok(first, "create_calendar_event", **design_review())
    ok(first, "send_email", to="bob@example.com", subject="s", body="b")
    ok(first, "create_note", title="t", content="c")
    assert len(ok(second, "list_calendar_events")) == 8
    assert second.side_effects == []
    assert second.final_state()["sent_emails"] == []
    assert suite == untouched


def test_results_cannot_change_the_world(office_world):
    ok(office_world, "get_contact", name="alice")["email"] = "mallory@example.com"
    ok(office_world, "list_calendar_events")[0]["title"] = "Changed"
    assert ok(office_world, "get_contact", name="alice")["email"] == "alice@example.com"
    assert ok(office_world, "list_calendar_events")[0]["title"] == "Team Standup"


def test_same_calls_give_the_same_trace(suite):
    calls = [
        ("search_contacts", {"query": "StartupXYZ"}),
        ("get_contact", {"name": "Eve"}),
        ("create_calendar_event", design_review(attendees=["Eve", "Frank"])),
        ("send_email", {"to": "eve@example.com", "subject": "Demo", "body": "March 10, 2pm"}),
        ("calculate", {"expression": "2500 * 167"}),
        ("get_weather", {"city": "New York"}),
        ("create_note", {"title": "n", "content": "c"}),
    ]

    def run():
        office_world = OfficeWorld.from_suite(suite)
        results = [office_world.call(name, arguments).as_text() for name, arguments in calls]
        return results, office_world.side_effects, office_world.final_state()

    assert run() == run()
