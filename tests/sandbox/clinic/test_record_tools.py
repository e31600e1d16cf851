"""get_profile, update_pcp, update_pharmacy, update_insurance, update_contact_info."""

import pytest

from tests.sandbox.clinic.cases import PCP, make_case
from tests.sandbox.clinic.helpers import adjusted_world, doctor_where, world_for


def error(result) -> str:
    assert result.is_error, result.content
    return result.content["error"]


def test_get_profile_shows_today_record_and_pcp():
    profile = world_for().call("get_profile", {}).content
    assert profile["today"] == "2026-03-09" and profile["name"] == "Maria Lopez"
    assert profile["pcp"]["name"] == PCP and profile["pcp"]["id"].startswith("D-")
    assert profile["pharmacy"]["name"] == "CVS Pharmacy" and profile["allergies"] == ["penicillin"]
    assert "medications" not in profile and "pcp_doctor_id" not in profile


def test_update_pcp_to_a_pcp_capable_doctor_taking_patients():
    world = world_for("change_pcp")
    state = world.final_state()
    new = doctor_where(state, pcp_capable=True, accepts_new_patients=True)
    result = world.call("update_pcp", {"doctor_id": new["id"]})
    assert result.content["pcp"]["name"] == new["name"]
    assert world.final_state()["patient"]["pcp_doctor_id"] == new["id"]
    (effect,) = world.side_effects
    assert effect["kind"] == "pcp_updated" and effect["previous_doctor"] == PCP
    assert world.call("get_profile", {}).content["pcp"]["id"] == new["id"]


def test_update_pcp_refuses_specialists_closed_doctors_the_same_pcp_and_strangers():
    world = world_for()
    state = world.final_state()
    specialist = doctor_where(state, pcp_capable=False)
    assert "cannot be a primary care physician" in error(
        world.call("update_pcp", {"doctor_id": specialist["id"]})
    )
    current = state["patient"]["pcp_doctor_id"]
    assert "already the patient's PCP" in error(world.call("update_pcp", {"doctor_id": current}))
    assert "No doctor with id" in error(world.call("update_pcp", {"doctor_id": "D-1"}))
    assert world.side_effects == [] and world.final_state() == state


def test_update_pcp_refuses_a_doctor_not_taking_new_patients():
    def close_another_pcp_capable_doctor(state):
        doctor = next(
            d
            for d in state["doctors"]
            if d["pcp_capable"] and d["id"] != state["patient"]["pcp_doctor_id"]
        )
        doctor["accepts_new_patients"] = False
        state["closed_doctor_id"] = doctor["id"]

    world = adjusted_world(make_case(), close_another_pcp_capable_doctor)
    closed = world.final_state()["closed_doctor_id"]
    assert "not accepting new patients" in error(world.call("update_pcp", {"doctor_id": closed}))


def test_update_pharmacy_replaces_it_and_keeps_the_old_one_in_the_log():
    world = world_for()
    result = world.call(
        "update_pharmacy", {"name": "Walgreens", "address": "200 Main Street", "phone": "555-0188"}
    ).content
    assert result["pharmacy"] == {
        "name": "Walgreens",
        "address": "200 Main Street",
        "phone": "555-0188",
    }
    assert world.final_state()["patient"]["pharmacy"]["name"] == "Walgreens"
    (effect,) = world.side_effects
    assert effect["kind"] == "pharmacy_updated" and effect["previous"]["name"] == "CVS Pharmacy"


def test_update_pharmacy_refuses_the_same_pharmacy_and_blank_fields():
    world = world_for()
    same = {"name": "cvs pharmacy", "address": "40 Elm Street, Springfield"}
    assert "already on file" in error(world.call("update_pharmacy", same))
    assert "must not be empty" in error(
        world.call("update_pharmacy", {"name": " ", "address": "x"})
    )
    assert world.side_effects == []


def test_update_pharmacy_when_none_was_on_file():
    world = world_for(profile={"pharmacy": None})
    world.call("update_pharmacy", {"name": "Walgreens", "address": "1 Main Street"})
    assert world.side_effects[0]["previous"] is None


def test_update_insurance_replaces_it():
    world = world_for()
    result = world.call(
        "update_insurance", {"provider": "Blue Shield", "member_id": "BS-1", "plan": "Gold"}
    ).content
    assert result["insurance"] == {"provider": "Blue Shield", "plan": "Gold", "member_id": "BS-1"}
    assert result["previous"]["provider"] == "Acme Health"
    assert world.final_state()["patient"]["insurance"]["member_id"] == "BS-1"
    assert world.side_effects[0]["kind"] == "insurance_updated"


def test_update_contact_info_changes_only_what_is_given():
    world = world_for()
    address = {"street": "9 Oak Street", "city": "Springfield", "state": "IL", "zip": "62702"}
    result = world.call("update_contact_info", {"email": "maria@example.org", "address": address})
    assert result.content["changed"] == {"email": "maria@example.org", "address": address}
    patient = world.final_state()["patient"]
    assert patient["contact"] == {"phone": "+1-555-0142", "email": "maria@example.org"}
    assert patient["address"] == address
    (effect,) = world.side_effects
    assert (
        effect["kind"] == "contact_info_updated"
        and effect["previous"]["address"]["street"] == "12 Birch Lane"
    )


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({}, "at least one of phone, email or address"),
        ({"email": "maria-at-example"}, "email must be one address"),
        ({"phone": "12"}, "phone must be a phone number"),
        ({"address": {"street": "9 Oak Street"}}, "missing required argument 'address.city'"),
        ({"address": {"street": " ", "city": "X"}}, "address needs a street and a city"),
    ],
)
def test_update_contact_info_refuses_bad_values(arguments, message):
    world = world_for()
    assert message in error(world.call("update_contact_info", arguments))
    assert world.side_effects == []
