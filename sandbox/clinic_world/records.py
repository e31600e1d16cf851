"""The patient's record: profile, PCP, pharmacy, insurance and contact details.

Each update keeps the value it replaced in its side effect, so a reviewer (and the outcome
checks) can see exactly what changed.
"""

from __future__ import annotations

import re
from typing import Any

from sandbox.base import StateChange, ToolError

from .common import Args, State, doctor_view, find_doctor, pcp_of, required_text, same_text

_EMAIL = re.compile(r"[^@\s,;<>]+@[^@\s,;<>]+\.[^@\s,;<>]+")


def get_profile(state: State, args: Args) -> dict[str, Any]:
    patient = {k: v for k, v in state["patient"].items() if k != "pcp_doctor_id"}
    pcp = pcp_of(state)
    return {
        "today": state["today"],
        **patient,
        "pcp": doctor_view(state, pcp) if pcp else None,
    }


def update_pcp(state: State, args: Args) -> StateChange:
    doctor = find_doctor(state, args["doctor_id"])
    previous = pcp_of(state)
    if previous and previous["id"] == doctor["id"]:
        raise ToolError(f"{doctor['name']} is already the patient's PCP; nothing changed.")
    if not doctor["pcp_capable"]:
        raise ToolError(
            f"{doctor['name']} ({doctor['specialty']}) cannot be a primary care physician; "
            "choose a Family Medicine or Internal Medicine doctor."
        )
    if not doctor["accepts_new_patients"]:
        raise ToolError(f"{doctor['name']} is not accepting new patients.")
    state["patient"]["pcp_doctor_id"] = doctor["id"]
    change = {
        "previous_doctor_id": previous["id"] if previous else None,
        "previous_doctor": previous["name"] if previous else None,
        "doctor_id": doctor["id"],
        "doctor": doctor["name"],
        "specialty": doctor["specialty"],
    }
    return StateChange(
        result={"status": "updated", "pcp": doctor_view(state, doctor)},
        side_effect={"kind": "pcp_updated", **change},
    )


def update_pharmacy(state: State, args: Args) -> StateChange:
    pharmacy = {
        "name": required_text(args, "name"),
        "address": required_text(args, "address"),
        "phone": str(args.get("phone", "")).strip(),
    }
    previous = state["patient"]["pharmacy"]
    if previous and all(same_text(previous.get(k), pharmacy[k]) for k in ("name", "address")):
        raise ToolError(f"{pharmacy['name']} at that address is already on file; nothing changed.")
    state["patient"]["pharmacy"] = pharmacy
    return StateChange(
        result={"status": "updated", "pharmacy": pharmacy, "previous": previous},
        side_effect={"kind": "pharmacy_updated", **pharmacy, "previous": previous},
    )


def update_insurance(state: State, args: Args) -> StateChange:
    insurance = {
        "provider": required_text(args, "provider"),
        "plan": str(args.get("plan", "")).strip(),
        "member_id": required_text(args, "member_id"),
    }
    previous = state["patient"]["insurance"]
    state["patient"]["insurance"] = insurance
    return StateChange(
        result={"status": "updated", "insurance": insurance, "previous": previous},
        side_effect={"kind": "insurance_updated", **insurance, "previous": previous},
    )


def update_contact_info(state: State, args: Args) -> StateChange:
    if not any(key in args for key in ("phone", "email", "address")):
        raise ToolError("give at least one of phone, email or address; nothing changed")
    changes: dict[str, Any] = {}
    contact = dict(state["patient"].get("contact") or {})
    if "phone" in args:
        changes["phone"] = contact["phone"] = _phone(args["phone"])
    if "email" in args:
        changes["email"] = contact["email"] = _email(args["email"])
    previous = {
        "contact": state["patient"].get("contact"),
        "address": state["patient"].get("address"),
    }
    if "address" in args:
        address = {k: str(v).strip() for k, v in args["address"].items()}
        if not address.get("street") or not address.get("city"):
            raise ToolError("address needs a street and a city; nothing changed")
        changes["address"] = state["patient"]["address"] = {
            "street": address["street"],
            "city": address["city"],
            "state": address.get("state", ""),
            "zip": address.get("zip", ""),
        }
    state["patient"]["contact"] = contact
    return StateChange(
        result={"status": "updated", "changed": changes},
        side_effect={"kind": "contact_info_updated", **changes, "previous": previous},
    )


def _phone(text: str) -> str:
    digits = re.sub(r"\D", "", text)
    if not 7 <= len(digits) <= 15:
        raise ToolError(f"phone must be a phone number with 7 to 15 digits, got {text!r}")
    return text.strip()


def _email(text: str) -> str:
    if not _EMAIL.fullmatch(text.strip()):
        raise ToolError(f"email must be one address like name@example.com, got {text!r}")
    return text.strip()
