"""list_medications, request_refill, request_new_prescription, message_pcp and
join_virtual_call_queue: every state change, error and edge."""

import pytest

from tests.sandbox.clinic.cases import PCP, make_case
from tests.sandbox.clinic.helpers import adjusted_world, world_for


def error(result) -> str:
    assert result.is_error, result.content
    return result.content["error"]


def test_list_medications_shows_refills_status_and_pharmacy():
    result = world_for().call("list_medications", {}).content
    assert [m["name"] for m in result["medications"]] == ["metformin", "lisinopril", "atorvastatin"]
    assert result["medications"][1]["refills_left"] == 0
    assert result["pharmacy"]["name"] == "CVS Pharmacy"


@pytest.mark.parametrize("name", ["metformin", "Metformin", "METFORMIN 500 mg", " metformin "])
def test_a_refill_goes_to_the_pharmacy_and_uses_one_refill(name):
    world = world_for()
    result = world.call("request_refill", {"medication": name})
    assert result.content["status"] == "sent_to_pharmacy"
    assert result.content["pharmacy"] == "CVS Pharmacy"
    state = world.final_state()
    assert state["medications"][0]["refills_left"] == 1
    (request,) = state["refill_requests"]
    assert request["medication"] == "metformin" and request["id"] == "R-1"
    (effect,) = world.side_effects
    assert effect["kind"] == "refill_requested" and effect["status"] == "sent_to_pharmacy"


def test_zero_refills_left_routes_the_request_to_the_prescriber():
    world = world_for()
    result = world.call("request_refill", {"medication": "lisinopril"}).content
    assert result["status"] == "pending_prescriber_approval"
    assert result["routed_because"] == "no refills left" and result["prescriber"] == PCP
    assert "NOT sent to the pharmacy" in result["message"]
    state = world.final_state()
    assert state["medications"][1]["refills_left"] == 0
    assert state["refill_requests"][0]["status"] == "pending_prescriber_approval"
    assert world.side_effects[0]["status"] == "pending_prescriber_approval"


def test_a_paused_medication_goes_to_the_prescriber():
    paused = {**make_case()["profile"]["medications"][0], "status": "paused"}
    world = world_for(profile={"medications": [paused]})
    result = world.call("request_refill", {"medication": "metformin"}).content
    assert result["status"] == "pending_prescriber_approval"
    assert result["routed_because"] == "the medication is paused"


def test_a_discontinued_medication_cannot_be_refilled():
    world = world_for()
    assert "discontinued" in error(world.call("request_refill", {"medication": "atorvastatin"}))
    assert world.side_effects == [] and world.final_state()["refill_requests"] == []


def test_a_medication_not_on_file_is_an_error_naming_those_on_file():
    message = error(world_for().call("request_refill", {"medication": "insulin"}))
    assert "'insulin' is not on file" in message and "metformin, lisinopril" in message


def test_an_ambiguous_name_is_an_error():
    medications = [
        {**make_case()["profile"]["medications"][0], "name": "metformin"},
        {**make_case()["profile"]["medications"][0], "name": "metformin ER"},
    ]
    world = world_for(profile={"medications": medications})
    assert "several medications" in error(world.call("request_refill", {"medication": "met"}))
    assert world.call("request_refill", {"medication": "metformin er"}).status == "ok"


def test_no_pharmacy_on_file_is_an_error_asking_to_set_one():
    world = world_for(profile={"pharmacy": None})
    message = error(world.call("request_refill", {"medication": "metformin"}))
    assert "No pharmacy is on file" in message and "update_pharmacy" in message
    assert world.final_state()["medications"][0]["refills_left"] == 2
    world.call("update_pharmacy", {"name": "Walgreens", "address": "1 Main Street"})
    assert (
        world.call("request_refill", {"medication": "metformin"}).content["pharmacy"] == "Walgreens"
    )


def test_a_second_refill_of_the_same_medication_is_refused():
    world = world_for()
    world.call("request_refill", {"medication": "metformin"})
    assert "already requested (R-1" in error(
        world.call("request_refill", {"medication": "Metformin"})
    )
    assert len(world.side_effects) == 1


def test_a_new_prescription_is_a_pending_request_to_the_pcp():
    world = world_for()
    result = world.call(
        "request_new_prescription",
        {"medication": "sertraline", "dosage": "50 mg", "reason": "Low mood"},
    ).content
    assert result["status"] == "pending_pcp_review" and result["to_doctor"] == PCP
    assert "not a prescription until approved" in result["message"]
    state = world.final_state()
    assert state["prescription_requests"][0]["medication"] == "sertraline"
    assert "sertraline" not in [m["name"] for m in state["medications"]]  # never auto-approved
    assert world.side_effects[0]["kind"] == "prescription_requested"


def test_a_new_prescription_matching_an_allergy_carries_a_warning():
    result = world_for().call(
        "request_new_prescription", {"medication": "Penicillin VK", "reason": "Sore throat"}
    )
    assert result.content["warning"] == "The patient has a recorded allergy to penicillin."


def test_blank_required_text_is_refused():
    world = world_for()
    assert "must not be empty" in error(
        world.call("request_new_prescription", {"medication": "  ", "reason": "x"})
    )
    assert "must not be empty" in error(world.call("message_pcp", {"subject": "Hi", "message": ""}))


def test_a_message_to_the_pcp_is_stored():
    world = world_for()
    result = world.call("message_pcp", {"subject": "Dizziness", "message": "I feel dizzy."}).content
    assert result["status"] == "sent" and result["to_doctor"] == PCP
    (stored,) = world.final_state()["pcp_messages"]
    assert (stored["id"], stored["subject"], stored["message"]) == (
        "M-1",
        "Dizziness",
        "I feel dizzy.",
    )
    assert world.side_effects[0]["kind"] == "pcp_message_sent"


def test_without_a_pcp_messages_and_prescription_requests_are_refused():
    world = adjusted_world(make_case(), lambda s: s["patient"].update(pcp_doctor_id=None))
    assert "No PCP is on file" in error(world.call("message_pcp", {"subject": "a", "message": "b"}))
    assert "update_pcp" in error(
        world.call("request_new_prescription", {"medication": "x", "reason": "y"})
    )


@pytest.mark.parametrize(
    "urgency, positions, waits", [("urgent", (1, 2), (5, 12)), ("normal", (3, 9), (25, 60))]
)
def test_joining_the_call_queue_is_stored_with_position_and_wait(urgency, positions, waits):
    world = world_for()
    result = world.call("join_virtual_call_queue", {"reason": "Chest pain", "urgency": urgency})
    entry = result.content
    assert positions[0] <= entry["position"] <= positions[1]
    assert waits[0] <= entry["estimated_wait_minutes"] <= waits[1]
    assert ("advice" in entry) == (urgency == "urgent")
    assert world.final_state()["virtual_queue"][0]["urgency"] == urgency
    assert world.side_effects[0]["kind"] == "virtual_queue_joined"


def test_the_queue_place_is_deterministic_and_joining_twice_is_refused():
    first, second = world_for(), world_for()
    arguments = {"reason": "Chest pain", "urgency": "urgent"}
    assert first.call("join_virtual_call_queue", arguments) == second.call(
        "join_virtual_call_queue", arguments
    )
    assert "already in the queue" in error(first.call("join_virtual_call_queue", arguments))
