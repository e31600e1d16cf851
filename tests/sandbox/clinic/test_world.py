"""The clinic generated from a case: shape, determinism, what the case names, isolation."""

import json
from datetime import date

import pytest

from sandbox.clinic import CLINIC_TOOL_SCHEMAS, ClinicWorld
from sandbox.clinic_world.generation import PCP_SPECIALTIES
from tests.sandbox.clinic.cases import PCP, make_case
from tests.sandbox.clinic.helpers import weekday, world_for

FIFTEEN_TOOLS = {
    "list_doctors", "get_available_appointments", "schedule_appointment", "cancel_appointment",
    "list_appointments", "list_medications", "request_refill", "request_new_prescription",
    "message_pcp", "join_virtual_call_queue", "get_profile", "update_pcp", "update_pharmacy",
    "update_insurance", "update_contact_info",
}  # fmt: skip


def test_the_fifteen_tools_have_described_json_schemas():
    world = world_for()
    schemas = world.tool_schemas()
    assert {s["name"] for s in schemas} == FIFTEEN_TOOLS
    for schema in schemas:
        assert len(schema["description"]) > 40
        assert schema["parameters"]["type"] == "object"
        for name in schema["parameters"]["required"]:
            assert name in schema["parameters"]["properties"]
    assert schemas == CLINIC_TOOL_SCHEMAS


def test_offices_and_doctors_in_the_patients_city():
    state = world_for().final_state()
    assert 4 <= len(state["offices"]) <= 6
    assert {o["city"] for o in state["offices"]} == {"Springfield"}
    assert 10 <= len(state["doctors"]) <= 15
    ids = [d["id"] for d in state["doctors"]]
    assert len(set(ids)) == len(ids) and all(i.startswith("D-1") for i in ids)
    assert {d["office_id"] for d in state["doctors"]} == {o["id"] for o in state["offices"]}
    specialties = {d["specialty"] for d in state["doctors"]}
    assert set(PCP_SPECIALTIES) <= specialties and len(specialties) >= 6
    for doctor in state["doctors"]:
        assert isinstance(doctor["accepts_new_patients"], bool)
        assert isinstance(doctor["telehealth"], bool)


def test_another_city_comes_from_the_profile_address():
    address = {"street": "1 Pine Rd", "city": "Eugene", "state": "OR", "zip": "97401"}
    state = world_for(profile={"address": address}).final_state()
    assert {(o["city"], o["state"]) for o in state["offices"]} == {("Eugene", "OR")}


def test_the_cases_pcp_is_one_of_the_doctors():
    state = world_for().final_state()
    pcp = next(d for d in state["doctors"] if d["id"] == state["patient"]["pcp_doctor_id"])
    assert pcp["name"] == PCP and pcp["specialty"] == "Family Medicine" and pcp["pcp_capable"]


def test_slots_cover_two_weeks_of_weekdays_after_today():
    state = world_for().final_state()
    assert state["today"] == "2026-03-09"
    assert state["horizon"] == {"first_day": "2026-03-10", "last_day": "2026-03-23"}
    days = {day for days in state["slots"].values() for day in days}
    assert days and all("2026-03-10" <= d <= "2026-03-23" and weekday(d) < 5 for d in days)
    statuses = [s for days in state["slots"].values() for t in days.values() for s in t.values()]
    assert statuses.count("open") > statuses.count("taken") > 0
    times = {t for days in state["slots"].values() for ts in days.values() for t in ts}
    assert all(
        t[3:] in ("00", "30") and ("08:00" <= t < "12:00" or "13:00" <= t < "17:00") for t in times
    )


def test_profile_appointments_are_booked_in_their_slots():
    state = world_for().final_state()
    first, second = state["appointments"]
    assert (first["id"], first["doctor"], first["status"]) == ("A-1001", PCP, "scheduled")
    assert second["id"] == "A-1002" and second["specialty"] == "Cardiology"
    assert state["slots"][first["doctor_id"]]["2026-03-12"]["10:30"] == "A-1001"
    assert state["slots"][second["doctor_id"]]["2026-03-18"]["14:00"] == "A-1002"


def test_past_appointments_are_completed_and_take_no_slot():
    past = {
        "doctor": PCP,
        "date": "2026-02-20",
        "time": "09:00",
        "type": "in_person",
        "reason": "x",
    }
    state = world_for(profile={"appointments": [past]}).final_state()
    assert state["appointments"][0]["status"] == "completed"
    assert all("2026-02-20" not in days for days in state["slots"].values())


def test_medications_and_record_come_from_the_profile():
    state = world_for().final_state()
    assert [(m["name"], m["refills_left"], m["status"]) for m in state["medications"]] == [
        ("metformin", 2, "active"),
        ("lisinopril", 0, "active"),
        ("atorvastatin", 3, "discontinued"),
    ]
    assert state["patient"]["pharmacy"]["name"] == "CVS Pharmacy"
    assert state["patient"]["allergies"] == ["penicillin"]
    assert world_for(profile={"pharmacy": None}).final_state()["patient"]["pharmacy"] is None


def test_the_goals_specialty_is_reachable():
    case = make_case(
        "schedule", details={"specialty": "Rheumatology", "appointment_type": "telehealth"}
    )
    doctors = ClinicWorld.from_case(case).final_state()["doctors"]
    assert any(
        d["specialty"] == "Rheumatology" and d["telehealth"] and d["accepts_new_patients"]
        for d in doctors
    )


def test_a_goals_appointment_missing_from_the_profile_is_added():
    details = {"doctor": "Dr. Kim Lee", "date": "2026-03-13", "time": "09:00"}
    state = world_for("cancel", details=details).final_state()
    added = state["appointments"][-1]
    assert (added["doctor"], added["date"], added["time"]) == ("Dr. Kim Lee", "2026-03-13", "09:00")


def test_same_case_gives_the_same_world():
    assert world_for().final_state() == world_for().final_state()
    assert world_for().tool_schemas() == world_for().tool_schemas()


def test_a_different_seed_gives_a_different_world():
    one, other = world_for(seed=1).final_state(), world_for(seed=2).final_state()
    assert one["doctors"] != other["doctors"] or one["slots"] != other["slots"]
    assert one["offices"] != other["offices"]


def test_final_state_is_json():
    state = world_for().final_state()
    assert json.loads(json.dumps(state)) == state


def test_worlds_are_isolated_from_each_other_and_the_case():
    case = make_case()
    frozen = json.dumps(case, sort_keys=True)
    first, second = ClinicWorld.from_case(case), ClinicWorld.from_case(case)
    first.call("request_refill", {"medication": "metformin"})
    first.call("update_pharmacy", {"name": "Walgreens", "address": "1 Main Street"})
    assert json.dumps(case, sort_keys=True) == frozen
    assert second.final_state() == ClinicWorld.from_case(case).final_state()
    assert second.side_effects == []
    state = first.final_state()
    state["medications"].clear()
    assert first.final_state()["medications"]


def test_today_is_fixed_by_the_case():
    world = world_for(today="2026-04-06")
    assert world.today == "2026-04-06"
    assert world.call("get_profile", {}).content["today"] == "2026-04-06"
    assert world.final_state()["horizon"]["first_day"] == date(2026, 4, 7).isoformat()


def test_bad_arguments_are_errors_never_crashes():
    world = world_for()
    assert "Unknown tool" in world.call("book_everything", {}).content["error"]
    assert "missing required argument 'doctor_id'" in world.call("update_pcp", {}).content["error"]
    assert "must be a string" in world.call("update_pcp", {"doctor_id": 101}).content["error"]
    assert "unknown argument" in world.call("list_appointments", {"all": True}).content["error"]
    assert (
        "must be one of"
        in world.call("join_virtual_call_queue", {"reason": "x", "urgency": "now"}).content["error"]
    )
    assert world.call("get_profile", None).is_error
    assert world.side_effects == []


def world_digest() -> str:
    import hashlib

    state = world_for("schedule").final_state()
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


@pytest.mark.slow
def test_same_world_in_another_process():
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from tests.sandbox.clinic.test_world import world_digest; print(world_digest())"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(root)],
        env={**os.environ, "PYTHONHASHSEED": "4242"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == world_digest()
