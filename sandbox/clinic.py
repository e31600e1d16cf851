"""The healthcare clinic world (DESIGN §3): one patient's clinic, generated from a case.

`ClinicWorld.from_case(case)` builds offices, doctors (the case's PCP among them), two weeks
of weekday slots, the patient's record, medications and appointments from the case's seed,
with "today" fixed by the case, so the fifteen tools answer the same way every time. Every
state-changing call logs a side effect (`{"kind": ...}`) and keeps what it did in the state
(messages, requests, queue entries), and `final_state()` is saved with the trace.

Side-effect kinds: appointment_scheduled, appointment_cancelled, refill_requested,
prescription_requested, pcp_message_sent, virtual_queue_joined, pcp_updated,
pharmacy_updated, insurance_updated, contact_info_updated.
"""

from __future__ import annotations

from typing import Any

from sandbox.base import ToolFunction, World
from sandbox.clinic_world.care import (
    join_virtual_call_queue,
    list_medications,
    message_pcp,
    request_new_prescription,
    request_refill,
)
from sandbox.clinic_world.generation import SPECIALTIES, build_state
from sandbox.clinic_world.records import (
    get_profile,
    update_contact_info,
    update_insurance,
    update_pcp,
    update_pharmacy,
)
from sandbox.clinic_world.scheduling import (
    cancel_appointment,
    get_available_appointments,
    list_appointments,
    list_doctors,
    schedule_appointment,
)
from sandbox.clinic_world.schemas import CLINIC_TOOL_SCHEMAS

CLINIC_TOOLS: dict[str, ToolFunction] = {
    "list_doctors": list_doctors,
    "get_available_appointments": get_available_appointments,
    "schedule_appointment": schedule_appointment,
    "cancel_appointment": cancel_appointment,
    "list_appointments": list_appointments,
    "list_medications": list_medications,
    "request_refill": request_refill,
    "request_new_prescription": request_new_prescription,
    "message_pcp": message_pcp,
    "join_virtual_call_queue": join_virtual_call_queue,
    "get_profile": get_profile,
    "update_pcp": update_pcp,
    "update_pharmacy": update_pharmacy,
    "update_insurance": update_insurance,
    "update_contact_info": update_contact_info,
}

__all__ = ["CLINIC_TOOLS", "CLINIC_TOOL_SCHEMAS", "SPECIALTIES", "ClinicWorld"]


class ClinicWorld(World):
    """A fresh clinic for one trace."""

    tools = CLINIC_TOOLS

    def __init__(
        self, state: dict[str, Any], tool_schemas: list[dict[str, Any]] | None = None
    ) -> None:
        super().__init__(state, CLINIC_TOOL_SCHEMAS if tool_schemas is None else tool_schemas)

    @classmethod
    def from_case(cls, case: dict[str, Any]) -> ClinicWorld:
        return cls(build_state(case))

    @property
    def today(self) -> str:
        return self._state["today"]
