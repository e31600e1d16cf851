"""list_doctors, get_available_appointments, schedule_appointment, cancel_appointment,
list_appointments: every state change, error and edge."""

import pytest

from tests.sandbox.clinic.cases import CARDIOLOGIST, PCP, make_case
from tests.sandbox.clinic.helpers import (
    adjusted_world,
    bookable_doctor,
    doctor_where,
    open_slot_of,
    slot_with,
    world_for,
)


@pytest.fixture
def clinic_world():
    return world_for()


@pytest.fixture
def state(clinic_world):
    return clinic_world.final_state()


def error(result) -> str:
    assert result.is_error, result.content
    return result.content["error"]


# --- list_doctors -----------------------------------------------------------------------------


def test_list_doctors_without_filters_lists_everyone(clinic_world, state):
    doctors = clinic_world.call("list_doctors", {}).content["doctors"]
    assert [d["id"] for d in doctors] == [d["id"] for d in state["doctors"]]
    pcp = next(d for d in doctors if d["is_your_pcp"])
    assert pcp["name"] == PCP and pcp["office"]["address"].endswith("Springfield, IL 62701")


@pytest.mark.parametrize("specialty", ["Cardiology", "cardiology", "cardiologist", "heart"])
def test_list_doctors_by_specialty_is_lenient(clinic_world, specialty):
    doctors = clinic_world.call("list_doctors", {"specialty": specialty}).content["doctors"]
    assert doctors and {d["specialty"] for d in doctors} == {"Cardiology"}
    assert CARDIOLOGIST in [d["name"] for d in doctors]


def test_list_doctors_primary_care_finds_pcp_capable_doctors(clinic_world):
    doctors = clinic_world.call("list_doctors", {"specialty": "primary care"}).content["doctors"]
    assert doctors and all(d["can_be_primary_care"] for d in doctors)
    assert {d["specialty"] for d in doctors} <= {"Family Medicine", "Internal Medicine"}


def test_list_doctors_by_office_and_city(clinic_world, state):
    office = state["offices"][0]["id"]
    by_office = clinic_world.call("list_doctors", {"office_id": office.lower()}).content["doctors"]
    assert by_office and {d["office"]["id"] for d in by_office} == {office}
    in_city = clinic_world.call("list_doctors", {"city": "springfield, IL"}).content["doctors"]
    assert len(in_city) == len(state["doctors"])


def test_list_doctors_with_no_match_says_what_exists(clinic_world):
    result = clinic_world.call("list_doctors", {"specialty": "Podiatry", "city": "Chicago"}).content
    assert result["doctors"] == []
    assert "Specialties offered" in result["notice"] and "Cardiology" in result["notice"]


# --- get_available_appointments ---------------------------------------------------------------


def test_available_appointments_cover_the_whole_schedule_by_default(clinic_world, state):
    doctor = bookable_doctor(state)
    result = clinic_world.call("get_available_appointments", {"doctor_id": doctor["id"]}).content
    expected = [
        (day, time)
        for day, times in sorted(state["slots"][doctor["id"]].items())
        for time, status in times.items()
        if status == "open"
    ]
    assert [(s["date"], s["time"]) for s in result["slots"]] == expected
    assert result["showing"] == {"start": "2026-03-10", "end": "2026-03-23"}
    assert result["notices"] == [] and "range_cut_short" not in result


def test_doctor_ids_and_names_are_found_loosely(clinic_world, state):
    doctor = state["doctors"][0]
    number = doctor["id"].removeprefix("D-")
    for reference in (doctor["id"].lower(), number, f"d{number}", doctor["name"].upper()):
        result = clinic_world.call("get_available_appointments", {"doctor_id": reference})
        assert result.content["doctor"]["id"] == doctor["id"]


def test_unknown_doctor_is_an_error(clinic_world):
    assert "No doctor with id 'D-999'" in error(
        clinic_world.call("get_available_appointments", {"doctor_id": "D-999"})
    )
    assert "list_doctors" in error(
        clinic_world.call("schedule_appointment", _booking("Dr. Nobody"))
    )


def test_a_range_past_the_schedule_is_cut_short_and_says_so(clinic_world, state):
    doctor = bookable_doctor(state)
    result = clinic_world.call(
        "get_available_appointments",
        {"doctor_id": doctor["id"], "start_date": "2026-03-16", "end_date": "2026-04-30"},
    ).content
    assert result["range_cut_short"] is True
    assert result["requested"] == {"start": "2026-03-16", "end": "2026-04-30"}
    assert result["showing"] == {"start": "2026-03-16", "end": "2026-03-23"}
    assert any("cut short" in n and "2026-03-23" in n for n in result["notices"])
    assert all("2026-03-16" <= s["date"] <= "2026-03-23" for s in result["slots"])


def test_a_range_starting_today_or_earlier_is_moved_and_says_so(clinic_world, state):
    doctor = bookable_doctor(state)
    result = clinic_world.call(
        "get_available_appointments",
        {"doctor_id": doctor["id"], "start_date": "2026-03-01", "end_date": "2026-03-12"},
    ).content
    assert result["range_start_moved"] is True and result["showing"]["start"] == "2026-03-10"
    assert any("moved to 2026-03-10" in n for n in result["notices"])


def test_a_day_with_no_slot_is_explicit_and_offers_alternatives(clinic_world, state):
    doctor = bookable_doctor(state)
    saturday = "2026-03-14"
    result = clinic_world.call(
        "get_available_appointments", {"doctor_id": doctor["id"], "date": saturday}
    ).content
    assert result["slots"] == [] and result["no_slots_on_requested_date"] is True
    assert "no open slots on 2026-03-14 (Saturday)" in result["notices"][0]
    assert "No other day was substituted" in result["notices"][0]
    alternatives = result["nearest_alternatives"]
    assert alternatives and all(a["date"] != saturday for a in alternatives)
    # Nearest first: no alternative is further away than a later one.
    distances = [abs(int(a["date"][-2:]) - 14) for a in alternatives]
    assert distances == sorted(distances)


def test_a_fully_taken_day_is_explicit(clinic_world, state):
    doctor = bookable_doctor(state)
    day = next(iter(state["slots"][doctor["id"]]))

    def fill(s):
        for time in s["slots"][doctor["id"]][day]:
            s["slots"][doctor["id"]][day][time] = "taken"

    full = adjusted_world(make_case(), fill)
    result = full.call("get_available_appointments", {"doctor_id": doctor["id"], "date": day})
    assert result.content["no_slots_on_requested_date"] is True
    assert "every slot that day is taken" in result.content["notices"][0]


def test_a_day_beyond_the_schedule_is_explicit(clinic_world, state):
    doctor = bookable_doctor(state)
    result = clinic_world.call(
        "get_available_appointments", {"doctor_id": doctor["id"], "date": "2026-04-02"}
    ).content
    assert result["range_cut_short"] is True and result["no_slots_on_requested_date"] is True
    assert result["nearest_alternatives"]


def test_telehealth_filter_on_an_in_person_doctor_is_explicit(clinic_world, state):
    doctor = doctor_where(state, telehealth=False)
    result = clinic_world.call(
        "get_available_appointments",
        {"doctor_id": doctor["id"], "appointment_type": "telehealth"},
    ).content
    assert result["slots"] == [] and result["telehealth_offered"] is False
    assert "does not offer telehealth" in result["notices"][0]


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"date": "03/12/2026"}, "date must be a date in YYYY-MM-DD format"),
        ({"start_date": "2026-03-20", "end_date": "2026-03-12"}, "is after end_date"),
        ({"date": "2026-03-12", "start_date": "2026-03-12"}, "not both"),
        ({"date": "2026-02-30"}, "YYYY-MM-DD"),
    ],
)
def test_bad_dates_are_errors(clinic_world, state, arguments, message):
    doctor = state["doctors"][0]
    assert message in error(
        clinic_world.call("get_available_appointments", {"doctor_id": doctor["id"], **arguments})
    )


# --- schedule_appointment ---------------------------------------------------------------------


def _booking(doctor_id: str, day: str = "2026-03-12", time: str = "10:00", kind="in_person"):
    return {
        "doctor_id": doctor_id,
        "date": day,
        "time": time,
        "appointment_type": kind,
        "reason": "Rash on my arm",
    }


def test_scheduling_books_the_slot_and_records_it(clinic_world, state):
    doctor = bookable_doctor(state)
    day, time = open_slot_of(state, doctor)
    result = clinic_world.call("schedule_appointment", _booking(doctor["id"], day, time))
    assert result.status == "ok"
    appointment = result.content["appointment"]
    assert appointment["id"] == "A-1003" and appointment["status"] == "scheduled"
    assert (appointment["date"], appointment["time"], appointment["type"]) == (
        day,
        time,
        "in_person",
    )
    after = clinic_world.final_state()
    assert after["slots"][doctor["id"]][day][time] == "A-1003"
    assert after["appointments"][-1]["booked_by"] == "agent"
    (effect,) = clinic_world.side_effects
    assert effect["kind"] == "appointment_scheduled" and effect["id"] == "A-1003"
    listed = clinic_world.call("list_appointments", {}).content["appointments"]
    assert "A-1003" in [a["id"] for a in listed]


def test_schedule_accepts_12_hour_times(clinic_world, state):
    doctor = bookable_doctor(state)
    day, time = open_slot_of(state, doctor)
    hour = int(time[:2])
    spoken = f"{hour % 12 or 12}:{time[3:]} {'PM' if hour >= 12 else 'am'}"
    assert (
        clinic_world.call("schedule_appointment", _booking(doctor["id"], day, spoken)).status
        == "ok"
    )


def test_a_taken_slot_is_refused_and_nothing_changes(clinic_world, state):
    doctor = bookable_doctor(state)
    _, day, time = slot_with(state, "taken", doctor)
    message = error(clinic_world.call("schedule_appointment", _booking(doctor["id"], day, time)))
    assert "already taken" in message and "Open times that day" in message
    assert clinic_world.final_state() == state and clinic_world.side_effects == []


def test_a_time_not_offered_is_refused(clinic_world, state):
    doctor = bookable_doctor(state)
    day = next(iter(state["slots"][doctor["id"]]))
    message = error(clinic_world.call("schedule_appointment", _booking(doctor["id"], day, "12:15")))
    assert f"no slot at 12:15 on {day}" in message


def test_a_day_the_doctor_does_not_work_is_refused(clinic_world, state):
    doctor = bookable_doctor(state)
    off_day = next(
        d
        for d in ("2026-03-10", "2026-03-11", "2026-03-12", "2026-03-13", "2026-03-16")
        if d not in state["slots"][doctor["id"]]
    )
    assert "does not see patients" in error(
        clinic_world.call("schedule_appointment", _booking(doctor["id"], off_day, "09:00"))
    )


def test_telehealth_with_an_in_person_doctor_is_refused(clinic_world, state):
    doctor = doctor_where(state, telehealth=False, accepts_new_patients=True)
    day, time = open_slot_of(state, doctor)
    message = error(
        clinic_world.call("schedule_appointment", _booking(doctor["id"], day, time, "telehealth"))
    )
    assert "does not offer telehealth" in message


def test_a_doctor_not_taking_new_patients_is_refused(clinic_world, state):
    doctor = doctor_where(state, accepts_new_patients=False)
    day, time = open_slot_of(state, doctor)
    assert "not accepting new patients" in error(
        clinic_world.call("schedule_appointment", _booking(doctor["id"], day, time))
    )


def test_the_patients_own_pcp_is_bookable_even_when_closed_to_new_patients(state):
    def close_pcp(s):
        pcp = next(d for d in s["doctors"] if d["id"] == s["patient"]["pcp_doctor_id"])
        pcp["accepts_new_patients"] = False

    clinic_world = adjusted_world(make_case(), close_pcp)
    pcp = next(d for d in state["doctors"] if d["id"] == state["patient"]["pcp_doctor_id"])
    day, time = open_slot_of(state, pcp)
    assert clinic_world.call("schedule_appointment", _booking(pcp["id"], day, time)).status == "ok"


@pytest.mark.parametrize(
    "day, message",
    [
        ("2026-03-09", "cannot be booked"),  # today
        ("2026-03-05", "cannot be booked"),
        ("2026-03-24", "cannot be booked"),
        ("2026-03-14", "closed at weekends"),
    ],
)
def test_days_outside_the_schedule_are_refused(clinic_world, state, day, message):
    assert message in error(
        clinic_world.call("schedule_appointment", _booking(state["doctors"][0]["id"], day))
    )


def test_the_patients_own_slot_is_refused(clinic_world, state):
    appointment = state["appointments"][0]
    own = _booking(appointment["doctor_id"], appointment["date"], appointment["time"])
    assert "already has appointment A-1001" in error(clinic_world.call("schedule_appointment", own))


def test_a_clash_with_another_appointment_at_the_same_time_is_refused(state):
    def open_same_time_elsewhere(s):
        doctor = next(d for d in s["doctors"] if d["id"] != s["appointments"][0]["doctor_id"])
        doctor["accepts_new_patients"] = True
        s["slots"][doctor["id"]].setdefault("2026-03-12", {})["10:30"] = "open"

    clinic_world = adjusted_world(make_case(), open_same_time_elsewhere)
    other = next(d for d in state["doctors"] if d["id"] != state["appointments"][0]["doctor_id"])
    message = error(
        clinic_world.call("schedule_appointment", _booking(other["id"], "2026-03-12", "10:30"))
    )
    assert "already has appointment A-1001" in message


# --- cancel_appointment and list_appointments -------------------------------------------------


def test_cancelling_frees_the_slot_and_records_it(clinic_world, state):
    result = clinic_world.call(
        "cancel_appointment", {"appointment_id": "A-1002", "reason": "Feeling better"}
    )
    assert result.content["status"] == "cancelled"
    after = clinic_world.final_state()
    cancelled = next(a for a in after["appointments"] if a["id"] == "A-1002")
    assert cancelled["status"] == "cancelled" and cancelled["cancel_reason"] == "Feeling better"
    assert after["slots"][cancelled["doctor_id"]]["2026-03-18"]["14:00"] == "open"
    (effect,) = clinic_world.side_effects
    assert (effect["kind"], effect["id"], effect["doctor"]) == (
        "appointment_cancelled",
        "A-1002",
        CARDIOLOGIST,
    )


@pytest.mark.parametrize("reference", ["a-1002", "1002", "A1002", " A-1002 "])
def test_appointment_ids_are_found_loosely(clinic_world, reference):
    assert clinic_world.call("cancel_appointment", {"appointment_id": reference}).status == "ok"


def test_cancelling_an_unknown_appointment_lists_the_real_ones(clinic_world):
    message = error(clinic_world.call("cancel_appointment", {"appointment_id": "A-7"}))
    assert "No appointment with id 'A-7'" in message and "A-1001, A-1002" in message


def test_cancelling_twice_is_refused(clinic_world):
    clinic_world.call("cancel_appointment", {"appointment_id": "A-1001"})
    assert "already cancelled" in error(
        clinic_world.call("cancel_appointment", {"appointment_id": "A-1001"})
    )
    assert len(clinic_world.side_effects) == 1


def test_a_past_appointment_cannot_be_cancelled():
    past = {
        "doctor": PCP,
        "date": "2026-02-20",
        "time": "09:00",
        "type": "in_person",
        "reason": "x",
    }
    clinic_world = world_for(profile={"appointments": [past]})
    assert "already took place" in error(
        clinic_world.call("cancel_appointment", {"appointment_id": "A-1001"})
    )


def test_list_appointments_shows_every_status_in_order(clinic_world):
    clinic_world.call("cancel_appointment", {"appointment_id": "A-1002"})
    listed = clinic_world.call("list_appointments", {}).content
    assert listed["today"] == "2026-03-09"
    assert [(a["id"], a["status"]) for a in listed["appointments"]] == [
        ("A-1001", "scheduled"),
        ("A-1002", "cancelled"),
    ]
    first = listed["appointments"][0]
    assert first["weekday"] == "Thursday" and first["office"]["name"]
