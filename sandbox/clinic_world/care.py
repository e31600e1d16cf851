"""Medications, refills, prescription requests, messages to the PCP and the call queue.

Every request is stored in the state, not only confirmed: a reviewer can read what was sent
to whom. Nothing is approved on the clinic's behalf: a refill with no refills left and a new
prescription both wait for a doctor, and the result says so.
"""

from __future__ import annotations

from typing import Any

from sandbox.base import StateChange, ToolError
from sandbox.seeding import stable_rng

from .common import Args, State, name_key, next_number, pcp_of, required_text

PCP_REPLY_TIME = "within 2 business days"


# --- medications ------------------------------------------------------------------------------


def list_medications(state: State, args: Args) -> dict[str, Any]:
    return {
        "medications": [dict(m) for m in state["medications"]],
        "pharmacy": state["patient"]["pharmacy"],
    }


def find_medication(state: State, text: str) -> dict[str, Any]:
    """The medication on file meant by `text`: its name in any case, or a phrase holding it
    ("Metformin 500 mg"), or the start of it ("metformin" for "metformin ER")."""
    wanted = name_key(text)
    medications = state["medications"]
    exact = [m for m in medications if name_key(m["name"]) == wanted]
    loose = [
        m
        for m in medications
        if wanted and (name_key(m["name"]) in wanted or wanted in name_key(m["name"]))
    ]
    matches = exact or loose
    if len(matches) == 1:
        return matches[0]
    on_file = ", ".join(m["name"] for m in medications) or "none"
    if matches:
        raise ToolError(f"{text!r} matches several medications on file: {on_file}. Name one.")
    raise ToolError(f"{text!r} is not on file. Medications on file: {on_file}.")


def request_refill(state: State, args: Args) -> StateChange:
    medication = find_medication(state, required_text(args, "medication"))
    if medication["status"] == "discontinued":
        raise ToolError(
            f"{medication['name']} was discontinued and cannot be refilled. The patient can "
            "ask their PCP about it (message_pcp or request_new_prescription)."
        )
    pharmacy = state["patient"]["pharmacy"]
    if not pharmacy:
        raise ToolError(
            "No pharmacy is on file, so there is nowhere to send the refill. Ask the patient "
            "for their pharmacy and set it with update_pharmacy first."
        )
    _refuse_duplicate_refill(state, medication)
    request = _refill_request(state, medication, pharmacy, args)
    state["refill_requests"].append(request)
    if request["status"] == "sent_to_pharmacy":
        medication["refills_left"] -= 1
    return StateChange(
        result={**request, "message": _refill_message(request)},
        side_effect={"kind": "refill_requested", **request},
    )


def _refuse_duplicate_refill(state: State, medication: dict[str, Any]) -> None:
    earlier = next(
        (r for r in state["refill_requests"] if r["medication"] == medication["name"]), None
    )
    if earlier:
        raise ToolError(
            f"A refill of {medication['name']} was already requested ({earlier['id']}, "
            f"{earlier['status']}); no new request was made."
        )


def _refill_request(
    state: State, medication: dict[str, Any], pharmacy: dict[str, Any], args: Args
) -> dict[str, Any]:
    if medication["refills_left"] <= 0:
        status, why = "pending_prescriber_approval", "no refills left"
    elif medication["status"] == "paused":
        status, why = "pending_prescriber_approval", "the medication is paused"
    else:
        status, why = "sent_to_pharmacy", ""
    return {
        "id": f"R-{next_number(state['refill_requests'], 'R-')}",
        "medication": medication["name"],
        "dosage": medication["dosage"],
        "status": status,
        "routed_because": why,
        "prescriber": medication["prescriber"],
        "pharmacy": pharmacy.get("name", ""),
        "refills_left_before": medication["refills_left"],
        "note": str(args.get("note", "")).strip(),
        "requested_on": state["today"],
    }


def _refill_message(request: dict[str, Any]) -> str:
    if request["status"] == "sent_to_pharmacy":
        return f"Refill of {request['medication']} sent to {request['pharmacy']}."
    prescriber = request["prescriber"] or "the prescriber"
    return (
        f"{request['medication']} has {request['routed_because']}: the refill was NOT sent to "
        f"the pharmacy. It was sent to {prescriber} for approval; the pharmacy gets it only "
        "once approved."
    )


def request_new_prescription(state: State, args: Args) -> StateChange:
    pcp = _require_pcp(state, "request a new prescription")
    medication = required_text(args, "medication")
    request = {
        "id": f"RX-{next_number(state['prescription_requests'], 'RX-')}",
        "medication": medication,
        "dosage": str(args.get("dosage", "")).strip(),
        "reason": required_text(args, "reason"),
        "status": "pending_pcp_review",
        "to_doctor_id": pcp["id"],
        "to_doctor": pcp["name"],
        "requested_on": state["today"],
    }
    state["prescription_requests"].append(request)
    result = {
        **request,
        "message": f"Request sent to {pcp['name']} for review; it is not a prescription until "
        f"approved. Expect an answer {PCP_REPLY_TIME}.",
    }
    allergies = [a for a in state["patient"].get("allergies") or [] if _mentions(medication, a)]
    if allergies:
        result["warning"] = f"The patient has a recorded allergy to {', '.join(allergies)}."
    return StateChange(result=result, side_effect={"kind": "prescription_requested", **request})


def _mentions(text: str, word: str) -> bool:
    return bool(name_key(word)) and name_key(word) in name_key(text)


# --- messages and the call queue --------------------------------------------------------------


def message_pcp(state: State, args: Args) -> StateChange:
    pcp = _require_pcp(state, "send a message")
    message = {
        "id": f"M-{next_number(state['pcp_messages'], 'M-')}",
        "to_doctor_id": pcp["id"],
        "to_doctor": pcp["name"],
        "subject": required_text(args, "subject"),
        "message": required_text(args, "message"),
        "sent_on": state["today"],
    }
    state["pcp_messages"].append(message)
    return StateChange(
        result={**message, "status": "sent", "expected_reply": PCP_REPLY_TIME},
        side_effect={"kind": "pcp_message_sent", **message},
    )


def _require_pcp(state: State, action: str) -> dict[str, Any]:
    pcp = pcp_of(state)
    if pcp is None:
        raise ToolError(f"No PCP is on file, so I cannot {action}. Set one with update_pcp.")
    return pcp


def join_virtual_call_queue(state: State, args: Args) -> StateChange:
    waiting = next((q for q in state["virtual_queue"] if q["status"] == "waiting"), None)
    if waiting:
        raise ToolError(
            f"The patient is already in the queue ({waiting['id']}, position "
            f"{waiting['position']}, about {waiting['estimated_wait_minutes']} minutes)."
        )
    urgency = args["urgency"]
    position, wait = _queue_place(state, urgency)
    entry = {
        "id": f"Q-{next_number(state['virtual_queue'], 'Q-')}",
        "reason": required_text(args, "reason"),
        "urgency": urgency,
        "position": position,
        "estimated_wait_minutes": wait,
        "status": "waiting",
        "joined_on": state["today"],
    }
    state["virtual_queue"].append(entry)
    result = {**entry}
    if urgency == "urgent":
        result["advice"] = (
            "If symptoms are life-threatening (chest pain, trouble breathing, stroke signs, "
            "thoughts of suicide), call 911 or 988 now instead of waiting."
        )
    return StateChange(result=result, side_effect={"kind": "virtual_queue_joined", **entry})


def _queue_place(state: State, urgency: str) -> tuple[int, int]:
    # Derived from the seed and the queue's history: the same calls give the same answer.
    rng = stable_rng("clinic-queue", state["seed"], len(state["virtual_queue"]), urgency)
    if urgency == "urgent":
        return rng.randint(1, 2), rng.randint(5, 12)
    return rng.randint(3, 9), rng.randint(25, 60)
