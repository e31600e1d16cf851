"""The trace page's side-effect cards and final state, and the case page's chart: the pure
shaping (`cases.chart`, `runs.side_effects`) on real sandbox records and on arbitrary JSON,
then the pages themselves, escaping what writers, models and tools produced."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from patientagentbench.cases.chart import (
    attribute_chips,
    goal_view,
    humanize,
    plain_text,
    profile_chart,
    words,
)
from patientagentbench.models import Trace
from patientagentbench.runs.side_effects import effect_card, effect_cards, state_sections
from sandbox.clinic_world.generation import build_state
from sandbox.office import OfficeWorld
from tests.sandbox.clinic.cases import make_case
from tests.sandbox.clinic.helpers import bookable_doctor, open_slot_of, world_for

EVIL = "<script>alert('x')</script>"
SUITES = "fixtures/suites/office-19.json"

# --- real records from the sandboxes ----------------------------------------------------------


def clinic_world_with_every_change():
    """A clinic world after one successful call of every state-changing tool."""
    world = world_for("prescription_renewal")
    state = world.final_state()
    doctor = bookable_doctor(state)
    day, time = open_slot_of(state, doctor)
    new_pcp = next(
        d
        for d in state["doctors"]
        if d["pcp_capable"]
        and d["accepts_new_patients"]
        and d["id"] != state["patient"]["pcp_doctor_id"]
    )
    calls = [
        (
            "schedule_appointment",
            {
                "doctor_id": doctor["id"],
                "date": day,
                "time": time,
                "appointment_type": "in_person",
                "reason": "Knee pain",
            },
        ),
        ("cancel_appointment", {"appointment_id": "A-1001", "reason": "Feeling better"}),
        ("request_refill", {"medication": "metformin"}),
        ("request_new_prescription", {"medication": "cetirizine", "reason": "Hay fever"}),
        ("message_pcp", {"subject": "Sugar readings", "message": "My readings are high."}),
        ("join_virtual_call_queue", {"reason": "Dizzy since this morning", "urgency": "urgent"}),
        ("update_pharmacy", {"name": "Walgreens", "address": "9 Oak Road", "phone": "555-0100"}),
        ("update_insurance", {"provider": "Blue Cross", "plan": "Gold", "member_id": "BC-1"}),
        ("update_contact_info", {"phone": "+1-555-0199", "email": "maria@example.org"}),
        ("update_pcp", {"doctor_id": new_pcp["id"]}),
    ]
    for name, arguments in calls:
        result = world.call(name, arguments)
        assert not result.is_error, (name, result.content)
    return world, doctor, day, time, new_pcp


def office_world_with_every_change():
    with open(SUITES) as handle:
        world = OfficeWorld.from_suite(json.load(handle))
    calls = [
        ("send_email", {"to": "dave@example.com", "subject": "Lunch", "body": "Noon on Friday?"}),
        (
            "create_calendar_event",
            {
                "title": "Planning",
                "date": "2026-03-11",
                "start_time": "10:00",
                "end_time": "11:00",
                "attendees": ["dave"],
            },
        ),
        ("create_note", {"title": "Ideas", "content": "Ship the report"}),
    ]
    for name, arguments in calls:
        assert not world.call(name, arguments).is_error, name
    return world


def test_every_clinic_side_effect_gets_a_readable_card():
    world, doctor, day, time, new_pcp = clinic_world_with_every_change()
    cards = {card.kind: card for card in effect_cards(world.side_effects)}
    assert set(cards) == {
        "appointment_scheduled",
        "appointment_cancelled",
        "refill_requested",
        "prescription_requested",
        "pcp_message_sent",
        "virtual_queue_joined",
        "pharmacy_updated",
        "insurance_updated",
        "contact_info_updated",
        "pcp_updated",
    }
    booked = cards["appointment_scheduled"]
    assert booked.title == "Appointment booked" and booked.tone == "added"
    assert day in booked.headline and time in booked.headline
    assert doctor["name"] in booked.headline and doctor["specialty"] in booked.headline
    assert ("Type", "in person") in [(f.label, f.value) for f in booked.fields]
    assert booked.ref.startswith("A-")
    cancelled = cards["appointment_cancelled"]
    assert cancelled.title == "Appointment cancelled" and cancelled.tone == "removed"
    assert "Feeling better" in [f.value for f in cancelled.fields]
    refill = cards["refill_requested"]
    assert refill.headline.startswith("metformin 500 mg") and "CVS Pharmacy" in refill.headline
    assert "Dr." in cards["prescription_requested"].headline
    message = cards["pcp_message_sent"]
    assert "Sugar readings" in message.headline
    assert [f for f in message.fields if f.label == "Message"][0].long
    assert "urgent" in cards["virtual_queue_joined"].headline
    assert cards["pharmacy_updated"].headline == "CVS Pharmacy → Walgreens"
    assert cards["insurance_updated"].headline == "Acme Health → Blue Cross Gold"
    assert cards["contact_info_updated"].headline == "Phone, email changed"
    assert cards["pcp_updated"].headline.endswith(f"{new_pcp['name']} ({new_pcp['specialty']})")
    for card in cards.values():
        assert card.title and card.headline
        assert json.loads(card.raw)["kind"] == card.kind
        # Labels are words, never the record's snake_case keys.
        assert all("_" not in field.label for field in card.fields)


def test_every_office_side_effect_gets_a_readable_card():
    cards = effect_cards(office_world_with_every_change().side_effects)
    assert [(c.title, c.headline) for c in cards] == [
        ("Email sent", "To dave@example.com: Lunch"),
        ("Calendar event created", "Planning · Wed 2026-03-11 10:00–11:00"),
        ("Note created", "Ideas"),
    ]
    assert [f.value for f in cards[0].fields] == ["Noon on Friday?"]


def test_unknown_and_malformed_side_effects_still_show_every_field():
    card = effect_card({"kind": "fax_sent", "to_number": "555-0101", "pages": 3})
    assert card.title == "Fax sent"
    assert [(f.label, f.value) for f in card.fields] == [("To number", "555-0101"), ("Pages", "3")]
    assert effect_card("a bare string").headline == "a bare string"
    assert effect_card({"kind": "appointment_scheduled"}).title == "Appointment booked"
    assert effect_cards(None) == ()


def test_clinic_final_state_sections():
    world, doctor, *_ = clinic_world_with_every_change()
    sections = {s.title: s for s in state_sections(world.final_state())}
    assert list(sections) == [
        "Patient record",
        "Appointments",
        "Medications",
        "Refill requests",
        "Prescription requests",
        "Messages to the PCP",
        "Virtual call queue",
        "Clinic",
    ]
    record = dict((row.label, row.value) for row in sections["Patient record"].rows)
    assert record["Pharmacy"].startswith("Walgreens") and record["Insurance"].startswith("Blue")
    assert "maria@example.org" in record["Contact"]
    statuses = [row.flag for row in sections["Appointments"].rows]
    assert "cancelled" in statuses and "scheduled" in statuses
    assert any(doctor["name"] in row.value for row in sections["Appointments"].rows)
    assert [row.label for row in sections["Clinic"].rows] == ["Doctors", "Bookable", "Today"]
    assert sections["Prescription requests"].rows[0].flag == "pending PCP review"
    # The world's reference data stays in the raw JSON: no section lists slots.
    assert not any("slot" in s.title.lower() for s in sections.values())


def test_office_final_state_sections():
    sections = {s.title: s for s in state_sections(office_world_with_every_change().final_state())}
    assert [r.label for r in sections["Sent emails"].rows] == ["To dave@example.com: Lunch"]
    assert sections["Notes"].rows[0].label == "Ideas"
    assert "contacts" in sections["Office"].rows[0].value


def test_an_unknown_state_is_shown_key_by_key_and_long_lists_are_cut():
    sections = state_sections({"robots": [{"name": f"r{i}"} for i in range(100)], "mode": "x"})
    robots, mode = sections
    assert robots.title == "Robots" and len(robots.rows) == 40 and robots.more == 60
    assert mode.rows[0].label == "x"
    assert state_sections("odd") and state_sections(None) == ()


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(JSON | st.dictionaries(st.sampled_from(["kind", "id", "date"]), JSON), max_size=4))
def test_side_effects_never_raise_on_any_json(effects):
    cards = effect_cards(effects)
    assert len(cards) == len(effects)
    for card, effect in zip(cards, effects, strict=True):
        assert json.loads(card.raw) == effect


@settings(max_examples=150, deadline=None)
@given(JSON | st.dictionaries(st.sampled_from(["patient", "appointments", "sent_emails"]), JSON))
def test_final_state_never_raises_on_any_json(state):
    for section in state_sections(state):
        assert section.title


# --- the chart ---------------------------------------------------------------------------------


def demo_case():
    case = make_case("prescription_renewal")
    case["profile"]["name"] = "Juan Hernández"
    return case


def chart_text(chart) -> str:
    parts = [chart.name, chart.summary]
    for section in chart.sections:
        parts.append(section.title)
        parts += [f"{r.label} {r.value} {r.note} {r.flag}" for r in section.rows]
    return "\n".join(parts)


def test_the_profile_reads_as_a_chart():
    case = demo_case()
    chart = profile_chart(case["profile"], case["today"])
    sections = {s.title: s for s in chart.sections}
    assert list(sections) == [
        "Demographics",
        "Conditions",
        "Allergies",
        "Medications",
        "Care team",
        "Insurance",
        "Appointments",
    ]
    assert chart.name == "Juan Hernández"
    assert re.fullmatch(r"female · \d+ years · she/her", chart.summary)
    demographics = {r.label: r for r in sections["Demographics"].rows}
    assert demographics["Date of birth"].note.endswith("years")
    assert demographics["Address"].value == "12 Birch Lane, Springfield, IL 62701"
    metformin = sections["Medications"].rows[0]
    assert (metformin.label, metformin.value, metformin.flag) == (
        "metformin 500 mg",
        "twice daily",
        "active",
    )
    assert "2 refills left" in metformin.note
    assert sections["Medications"].rows[2].flag == "discontinued"
    care = {r.label: r for r in sections["Care team"].rows}
    assert care["Primary care"].note == "Family Medicine"
    assert care["Pharmacy"].value == "CVS Pharmacy"
    assert care["Also prescribing"].value == "Dr. Sofia Novak"
    assert [r.label for r in sections["Insurance"].rows] == ["Provider", "Plan", "Member ID"]
    assert sections["Appointments"].rows[0].label.startswith("Thu 2026-03-12 10:30")
    assert sections["Allergies"].layout == "tags"


def test_a_profile_without_allergies_or_insurance_says_so():
    chart = profile_chart({"name": "A", "allergies": [], "insurance": None, "extra_note": "hi"})
    sections = {s.title: s for s in chart.sections}
    assert sections["Allergies"].rows == () and sections["Allergies"].empty == "No known allergies"
    assert sections["Insurance"].rows == ()
    assert sections["Other"].rows[0].label == "Extra note"


def test_attributes_become_labelled_chips():
    chips = attribute_chips(demo_case()["attributes"])
    labels = [chip.label for chip in chips]
    assert all("_" not in label and label[0].isupper() for label in labels)
    assert "Sex" not in labels and "Age group" not in labels  # folded into Gender and Age
    values = {chip.label: chip.value for chip in chips if not chip.group}
    assert values["Subtask"] == "prescription renewal"
    assert values["Care preference"] == words(demo_case()["attributes"]["care_preference"])
    assert any(chip.group == "traits" and chip.label == "Health literacy" for chip in chips)
    odd = attribute_chips({"gender": "non-binary", "sex": "female", "new_axis": "a_b"})
    assert [(c.label, c.value) for c in odd] == [
        ("Gender", "non-binary"),
        ("Sex", "female"),
        ("New axis", "a b"),
    ]


def test_the_goal_reads_as_text():
    goal = goal_view(
        {
            "summary": "Switch pharmacy",
            "subtask": "update_pharmacy",
            "details": {"pharmacy": {"name": "Costco", "address": "1 Main St", "phone": ""}},
            "must_escalate": False,
            "must_not": ["request_refill:metformin"],
        }
    )
    assert goal.subtask == "Update pharmacy"
    assert [(r.label, r.value) for r in goal.details] == [("Pharmacy", "Costco · 1 Main St")]
    assert goal.must_escalate is False and goal.must_not == ("request_refill:metformin",)


def test_humanize():
    assert humanize("refills_left") == "Refills left"
    assert humanize("pcp_doctor_id") == "PCP doctor ID"
    assert plain_text({"a_b": [1, True, None]}) == "A b: 1, yes"


def leaves(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from leaves(item)
    elif isinstance(value, str | int) and not isinstance(value, bool):
        yield value


PROFILE_KEYS = st.sampled_from(
    ["name", "contact", "address", "medications", "allergies", "pcp", "pharmacy", "insurance"]
    + ["appointments", "problems", "date_of_birth", "sex", "extra"]
)


@settings(max_examples=200, deadline=None)
@given(JSON | st.dictionaries(PROFILE_KEYS, JSON, max_size=8), st.text(max_size=10))
def test_the_chart_never_raises_and_shows_every_value(profile, today):
    chart = profile_chart(profile, today)
    text = chart_text(chart)
    for leaf in leaves(profile):
        shown = str(leaf).strip()
        assert shown in text or words(shown) in text, (leaf, text)


@settings(max_examples=100, deadline=None)
@given(JSON, JSON)
def test_chips_and_goal_never_raise(attributes, goal):
    attribute_chips(attributes)
    goal_view(goal)


# --- the pages ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_trace_page_shows_cards_and_the_state_with_raw_json_one_click_away(
    client, researcher, scenario_trace
):
    world, *_ = clinic_world_with_every_change()
    Trace.objects.filter(pk=scenario_trace.pk).update(
        side_effects=world.side_effects, final_state=world.final_state()
    )
    client.force_login(researcher)
    body = client.get(reverse("trace_detail", args=[scenario_trace.pk])).content.decode()
    for title in ("Appointment booked", "Appointment cancelled", "Refill requested"):
        assert f'<b class="effect-title">{title}</b>' in body
    assert "Patient record" in body and "Messages to the PCP" in body
    assert body.count('<pre class="raw-json">') == len(world.side_effects) + 1
    assert "<details" in body and "Final sandbox state as raw JSON" in body
    assert (
        reverse("case_detail", args=[scenario_trace.task.suite_id, scenario_trace.task_id]) in body
    )


@pytest.mark.django_db
def test_trace_page_escapes_side_effects_and_state(client, researcher, scenario_trace):
    effect = {"kind": "pcp_message_sent", "subject": EVIL, "message": EVIL, "to_doctor": EVIL}
    state = build_state(scenario_trace.task.case)
    state["patient"]["name"] = EVIL
    state["pcp_messages"].append({k: v for k, v in effect.items() if k != "kind"})
    Trace.objects.filter(pk=scenario_trace.pk).update(
        side_effects=[effect, {"kind": EVIL, EVIL: EVIL}], final_state=state
    )
    client.force_login(researcher)
    body = client.get(reverse("trace_detail", args=[scenario_trace.pk])).content.decode()
    assert EVIL not in body
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in body


@pytest.mark.django_db
def test_case_page_shows_a_chart_chips_and_goal_text(client, researcher, scenario_trace):
    task = scenario_trace.task
    case = dict(task.case)
    case["profile"] = {**case["profile"], "name": "Juan Hernández"}
    type(task).objects.filter(pk=task.pk).update(case=case)
    client.force_login(researcher)
    body = client.get(reverse("case_detail", args=[task.suite_id, task.pk])).content.decode()
    for title in ("Demographics", "Medications", "Allergies", "Care team", "Insurance"):
        assert f"<h3>{title}</h3>" in body
    assert "Juan Hernández" in body and "\\u00e1" not in body
    assert '<span class="chip-label">Care preference</span>' in body
    assert '<span class="chip-label">Sex</span>' not in body  # gender and sex agree
    assert "care_preference" not in body.split("Profile as raw JSON")[0]
    assert "Profile as raw JSON" in body and "Goal as raw JSON" in body
    assert "Hidden story" in body and "Patient profile" in body
    medication = case["profile"]["medications"][0]
    assert f"{medication['name']} {medication['dosage']}" in body


@pytest.mark.django_db
def test_case_page_escapes_profile_story_and_goal(client, researcher, scenario_trace):
    task = scenario_trace.task
    case = dict(task.case)
    case["profile"] = {**case["profile"], "name": EVIL, "allergies": [EVIL], EVIL: EVIL}
    case["goal"] = {**case["goal"], "summary": EVIL, "must_not": [EVIL]}
    case["story"] = EVIL
    attributes = {**task.attributes, "personality": EVIL, EVIL: EVIL}
    type(task).objects.filter(pk=task.pk).update(case=case, attributes=attributes)
    client.force_login(researcher)
    body = client.get(reverse("case_detail", args=[task.suite_id, task.pk])).content.decode()
    assert EVIL not in body
    assert body.count("&lt;script&gt;") >= 6
