"""The fifteen clinic tools as an LLM sees them: name, description, JSON-schema parameters.

Descriptions say what a tool does, what it returns and when it refuses, because that is all
a model has to go on. Dates are YYYY-MM-DD; times are HH:MM (24-hour).
"""

from __future__ import annotations

from typing import Any

_DATE = {"type": "string", "description": "A date in YYYY-MM-DD format."}
_APPOINTMENT_TYPE = {
    "type": "string",
    "enum": ["in_person", "telehealth"],
    "description": "in_person (at the doctor's office) or telehealth (video visit).",
}


def _tool(name: str, description: str, properties: dict[str, Any], required=()) -> dict:
    return {
        "name": name,
        "description": description,
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": list(required),
            "additionalProperties": False,
        },
    }


CLINIC_TOOL_SCHEMAS: list[dict[str, Any]] = [
    _tool(
        "list_doctors",
        "List the clinic's doctors with their id (like 'D-101'), specialty, office, whether "
        "they accept new patients, offer telehealth and can be a primary care physician (PCP). "
        "Filter by specialty (e.g. 'Cardiology', 'Family Medicine'; 'primary care' finds "
        "PCP-capable doctors), office id or city. With no filter, lists every doctor.",
        {
            "specialty": {"type": "string", "description": "Specialty to filter by."},
            "office_id": {"type": "string", "description": "Office id like 'O-1'."},
            "city": {"type": "string", "description": "City the office is in."},
        },
    ),
    _tool(
        "get_available_appointments",
        "Open appointment slots of one doctor. The schedule covers weekdays from tomorrow up "
        "to two weeks from today. Give one day with 'date', or a range with start_date and/or "
        "end_date (default: the whole schedule). A range reaching past the schedule is cut "
        "short, and the result says so; when a requested day has no open slot the result says "
        "so and lists the nearest alternatives instead - it never swaps in another day.",
        {
            "doctor_id": {"type": "string", "description": "Doctor id like 'D-101'."},
            "date": {**_DATE, "description": "One day to check (YYYY-MM-DD)."},
            "start_date": {**_DATE, "description": "First day of the range (YYYY-MM-DD)."},
            "end_date": {**_DATE, "description": "Last day of the range (YYYY-MM-DD)."},
            "appointment_type": {
                **_APPOINTMENT_TYPE,
                "description": "Only slots usable for this visit type.",
            },
        },
        required=["doctor_id"],
    ),
    _tool(
        "schedule_appointment",
        "Book an open slot for the patient. Fails (and changes nothing) if the slot is taken "
        "or not offered, the doctor does not offer telehealth for a telehealth visit, the "
        "doctor does not accept new patients, or the patient already has an appointment then.",
        {
            "doctor_id": {"type": "string", "description": "Doctor id like 'D-101'."},
            "date": _DATE,
            "time": {"type": "string", "description": "Slot start time, HH:MM (24-hour)."},
            "appointment_type": _APPOINTMENT_TYPE,
            "reason": {"type": "string", "description": "Reason for the visit."},
        },
        required=["doctor_id", "date", "time", "appointment_type"],
    ),
    _tool(
        "cancel_appointment",
        "Cancel one of the patient's upcoming appointments by its id (like 'A-1001'; see "
        "list_appointments). The slot is released.",
        {
            "appointment_id": {"type": "string", "description": "Appointment id like 'A-1001'."},
            "reason": {"type": "string", "description": "Why it is cancelled (optional)."},
        },
        required=["appointment_id"],
    ),
    _tool(
        "list_appointments",
        "The patient's appointments (past, upcoming and cancelled) with id, doctor, date, "
        "time, type, reason and status.",
        {},
    ),
    _tool(
        "list_medications",
        "The patient's medications on file with dosage, frequency, status (active, paused, "
        "discontinued), refills left, last fill date and prescriber, and the pharmacy on file.",
        {},
    ),
    _tool(
        "request_refill",
        "Request a refill of a medication on file, sent to the pharmacy on file. With no "
        "refills left the request goes to the prescriber for approval instead (the result "
        "says so). Fails if the medication is not on file or discontinued, or no pharmacy is "
        "on file (set one with update_pharmacy first).",
        {
            "medication": {"type": "string", "description": "Medication name as on file."},
            "note": {"type": "string", "description": "Note for the pharmacy (optional)."},
        },
        required=["medication"],
    ),
    _tool(
        "request_new_prescription",
        "Ask the patient's PCP to consider prescribing a new medication. Creates a pending "
        "request for the PCP to review; it is never approved automatically.",
        {
            "medication": {"type": "string", "description": "Medication asked for."},
            "dosage": {"type": "string", "description": "Dosage, if known (optional)."},
            "reason": {"type": "string", "description": "Why the patient needs it."},
        },
        required=["medication", "reason"],
    ),
    _tool(
        "message_pcp",
        "Send a secure message to the patient's primary care physician. The message is "
        "stored; the PCP replies within two business days. Not for emergencies.",
        {
            "subject": {"type": "string", "description": "Short subject line."},
            "message": {"type": "string", "description": "The message text."},
        },
        required=["subject", "message"],
    ),
    _tool(
        "join_virtual_call_queue",
        "Put the patient in the queue for a phone/video call with an on-call clinician. "
        "Returns the queue position and estimated wait. Use urgency 'urgent' for symptoms that "
        "need attention today; for a life-threatening emergency the patient should call 911.",
        {
            "reason": {"type": "string", "description": "Why the patient needs a call."},
            "urgency": {"type": "string", "enum": ["normal", "urgent"]},
        },
        required=["reason", "urgency"],
    ),
    _tool(
        "get_profile",
        "The patient's profile: today's date, name, date of birth, contact details, address, "
        "insurance, pharmacy, primary care physician (PCP), allergies and problems.",
        {},
    ),
    _tool(
        "update_pcp",
        "Change the patient's primary care physician. The new doctor must be able to act as "
        "a PCP (Family or Internal Medicine) and accept new patients.",
        {"doctor_id": {"type": "string", "description": "Doctor id like 'D-101'."}},
        required=["doctor_id"],
    ),
    _tool(
        "update_pharmacy",
        "Set the patient's pharmacy (where refills are sent), replacing the one on file.",
        {
            "name": {"type": "string", "description": "Pharmacy name."},
            "address": {"type": "string", "description": "Street address, city."},
            "phone": {"type": "string", "description": "Phone number (optional)."},
        },
        required=["name", "address"],
    ),
    _tool(
        "update_insurance",
        "Replace the patient's insurance on file with a new provider and member id (for example "
        "after a change of plan).",
        {
            "provider": {"type": "string", "description": "Insurance company."},
            "member_id": {"type": "string", "description": "Member id on the card."},
            "plan": {"type": "string", "description": "Plan name (optional)."},
        },
        required=["provider", "member_id"],
    ),
    _tool(
        "update_contact_info",
        "Update the patient's phone, email and/or home address; give at least one.",
        {
            "phone": {"type": "string", "description": "Phone number."},
            "email": {"type": "string", "description": "Email address."},
            "address": {
                "type": "object",
                "description": "Home address.",
                "properties": {
                    "street": {"type": "string"},
                    "city": {"type": "string"},
                    "state": {"type": "string"},
                    "zip": {"type": "string"},
                },
                "required": ["street", "city"],
                "additionalProperties": False,
            },
        },
    ),
]
