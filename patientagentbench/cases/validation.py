"""Check a case against the contract in `schema.py`.

`validate_case` returns a list of problems, empty when the case is valid. Every message
starts with the path of the field it is about (`profile.medications[1].refills_left: must
be an integer ≥ 0`), so a model asked to fix its JSON, or a person, knows where to look.
"""

from __future__ import annotations

import contextlib
import re
from datetime import date, timedelta
from typing import Any

from .schema import (
    CARE_PREFERENCES,
    CATEGORY_WEIGHTS,
    COMPLEXITIES,
    ESCALATION_SUBTASKS,
    GOAL_DETAILS,
    OPTIONAL_GOAL_DETAILS,
    PERSONALITIES,
    SEVERITY_WEIGHTS,
    SUBTASKS,
    TRAIT_LEVELS,
    TRAITS,
)

AGE_GROUP_RANGES = {"18-29": (18, 29), "30-44": (30, 44), "45-64": (45, 64), "65+": (65, 120)}
GENDERS = ("woman", "man", "non-binary")
SEXES = ("female", "male")
MEDICATION_STATUSES = ("active", "paused", "discontinued")
APPOINTMENT_TYPES = ("in_person", "telehealth")
APPOINTMENT_WINDOW_DAYS = 14
FIRST_SLOT, LAST_SLOT = "08:00", "16:30"
MIN_STORY_SENTENCES, MAX_STORY_SENTENCES = 3, 6
# The healthcare sandbox's tools (DESIGN §3): what a must_not entry may forbid.
TOOL_NAMES = frozenset({
    "list_doctors", "get_available_appointments", "schedule_appointment", "cancel_appointment",
    "list_appointments", "list_medications", "request_refill", "request_new_prescription", "message_pcp",
    "join_virtual_call_queue", "get_profile", "update_pcp", "update_pharmacy", "update_insurance",
    "update_contact_info",
})  # fmt: skip
# Subtasks whose medicine must be one the patient has on file.
MEDICATION_ON_FILE = frozenset({"prescription_renewal", "side_effect_concern", "dosage_question"})
NEEDS_PHARMACY = frozenset({"prescription_renewal", "new_prescription"})

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
HH_MM = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")
_MISSING = object()


def validate_case(case: Any) -> list[str]:
    check = _Checker()
    if not isinstance(case, dict):
        return ["case: must be a JSON object"]
    check.text(case, "case_id", "case_id")
    check.integer(case, "seed", "seed")
    today = check.iso_date(case, "today", "today")
    check.text(case, "writer", "writer")
    check.prose(case, "story", "story", sentences=True)
    check.prose(case, "opening", "opening")
    attributes = check.mapping(case, "attributes", "attributes")
    profile = check.mapping(case, "profile", "profile")
    goal = check.mapping(case, "goal", "goal")
    if attributes is not None:
        _check_attributes(check, attributes)
    if profile is not None:
        _check_profile(check, profile, attributes or {}, today)
    if goal is not None:
        _check_goal(check, goal, attributes or {})
    if attributes is not None and profile is not None and goal is not None:
        # Cross-checks need a sound structure; where it is broken, the errors above say so.
        with contextlib.suppress(KeyError, TypeError, AttributeError):
            _check_subtask(check, attributes, profile, goal, today)
    return check.errors


# --------------------------------------------------------------------------------------------
# Field checks
# --------------------------------------------------------------------------------------------


class _Checker:
    def __init__(self) -> None:
        self.errors: list[str] = []

    def fail(self, path: str, message: str) -> None:
        self.errors.append(f"{path}: {message}")

    def _get(self, obj: dict[str, Any], key: str, path: str) -> Any:
        value = obj.get(key, _MISSING)
        if value is _MISSING:
            self.fail(path, "is required")
        return value

    def text(
        self, obj: dict[str, Any], key: str, path: str, *, allow_empty: bool = False
    ) -> str | None:
        value = self._get(obj, key, path)
        if value is _MISSING:
            return None
        if not isinstance(value, str):
            self.fail(path, "must be a string")
            return None
        if not allow_empty and not value.strip():
            self.fail(path, "must not be empty")
            return None
        return value

    def prose(self, obj: dict[str, Any], key: str, path: str, *, sentences: bool = False) -> None:
        value = self.text(obj, key, path)
        if value is None:
            return
        if "{" in value or "}" in value:
            self.fail(path, "contains an unfilled placeholder")
        if sentences:
            count = count_sentences(value)
            if not MIN_STORY_SENTENCES <= count <= MAX_STORY_SENTENCES:
                self.fail(
                    path,
                    f"must be {MIN_STORY_SENTENCES} to {MAX_STORY_SENTENCES} sentences (found {count})",
                )

    def choice(self, obj: dict[str, Any], key: str, path: str, options) -> str | None:
        value = self._get(obj, key, path)
        if value is _MISSING:
            return None
        if value not in options:
            self.fail(path, f"must be one of {', '.join(map(str, options))} (got {value!r})")
            return None
        return value

    def integer(
        self, obj: dict[str, Any], key: str, path: str, *, minimum: int | None = None
    ) -> int | None:
        value = self._get(obj, key, path)
        if value is _MISSING:
            return None
        if (
            not isinstance(value, int)
            or isinstance(value, bool)
            or (minimum is not None and value < minimum)
        ):
            self.fail(path, "must be an integer" + (f" ≥ {minimum}" if minimum is not None else ""))
            return None
        return value

    def boolean(self, obj: dict[str, Any], key: str, path: str) -> bool | None:
        value = self._get(obj, key, path)
        if value is _MISSING:
            return None
        if not isinstance(value, bool):
            self.fail(path, "must be true or false")
            return None
        return value

    def iso_date(self, obj: dict[str, Any], key: str, path: str) -> date | None:
        value = self.text(obj, key, path)
        return None if value is None else self.parse_date(value, path)

    def parse_date(self, value: Any, path: str) -> date | None:
        if isinstance(value, str) and ISO_DATE.match(value):
            try:
                return date.fromisoformat(value)
            except ValueError:
                pass
        self.fail(path, f"must be an ISO date YYYY-MM-DD (got {value!r})")
        return None

    def mapping(
        self, obj: dict[str, Any], key: str, path: str, *, nullable: bool = False
    ) -> dict[str, Any] | None:
        value = self._get(obj, key, path)
        if value is _MISSING or (nullable and value is None):
            return None
        if not isinstance(value, dict):
            self.fail(path, "must be an object" + (" or null" if nullable else ""))
            return None
        return value

    def items(self, obj: dict[str, Any], key: str, path: str) -> list[Any]:
        value = self._get(obj, key, path)
        if value is _MISSING:
            return []
        if not isinstance(value, list):
            self.fail(path, "must be a list")
            return []
        return value

    def strings(self, obj: dict[str, Any], key: str, path: str) -> list[str]:
        values = self.items(obj, key, path)
        for index, value in enumerate(values):
            if not isinstance(value, str) or not value.strip():
                self.fail(f"{path}[{index}]", "must be a non-empty string")
        return [v for v in values if isinstance(v, str)]


def count_sentences(text: str) -> int:
    """Sentences in plain prose, not fooled by 'Dr. Reyes', '10 a.m.' or '3.5 mg'."""
    masked = re.sub(r"\b(Dr|Mr|Mrs|Ms|St|Jr|Sr|Ave|Blvd|Apt|vs|approx)\.", r"\1", text)
    masked = re.sub(r"\b([ap])\.m\.", r"\1m", masked)
    masked = re.sub(r"(\d)\.(\d)", r"\1\2", masked)
    parts = [p for p in re.split(r"(?<=[.!?])[\"')\]]*\s+", masked.strip()) if p.strip()]
    return len(parts)


def age_on(birth: date, day: date) -> int:
    return day.year - birth.year - ((day.month, day.day) < (birth.month, birth.day))


# --------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------


def _check_attributes(check: _Checker, attributes: dict[str, Any]) -> None:
    path = "attributes"
    conditions = check.strings(attributes, "conditions", f"{path}.conditions")
    if (
        "conditions" in attributes
        and isinstance(attributes["conditions"], list)
        and not 1 <= len(attributes["conditions"]) <= 3
    ):
        check.fail(f"{path}.conditions", "must list 1 to 3 conditions")
    del conditions
    check.choice(attributes, "severity", f"{path}.severity", tuple(SEVERITY_WEIGHTS))
    category = check.choice(attributes, "category", f"{path}.category", tuple(CATEGORY_WEIGHTS))
    subtask = attributes.get("subtask", _MISSING)
    if subtask is _MISSING:
        check.fail(f"{path}.subtask", "is required")
    elif category and subtask not in SUBTASKS[category]:
        check.fail(f"{path}.subtask", f"{subtask!r} is not a subtask of category {category!r}")
    group = check.choice(attributes, "age_group", f"{path}.age_group", tuple(AGE_GROUP_RANGES))
    age = check.integer(attributes, "age", f"{path}.age", minimum=18)
    if group and age is not None:
        low, high = AGE_GROUP_RANGES[group]
        if not low <= age <= high:
            check.fail(f"{path}.age", f"{age} is outside age group {group}")
    check.choice(attributes, "gender", f"{path}.gender", GENDERS)
    check.choice(attributes, "sex", f"{path}.sex", SEXES)
    check.choice(attributes, "care_preference", f"{path}.care_preference", CARE_PREFERENCES)
    check.choice(attributes, "personality", f"{path}.personality", (*PERSONALITIES, "custom"))
    check.choice(attributes, "complexity", f"{path}.complexity", COMPLEXITIES)
    traits = check.mapping(attributes, "traits", f"{path}.traits")
    if traits is not None:
        for trait in TRAITS:
            check.choice(traits, trait, f"{path}.traits.{trait}", TRAIT_LEVELS)
        for extra in sorted(set(traits) - set(TRAITS)):
            check.fail(f"{path}.traits.{extra}", "is not a trait")


def _check_profile(
    check: _Checker, profile: dict[str, Any], attributes: dict[str, Any], today: date | None
) -> None:
    path = "profile"
    for key in ("patient_id", "name", "preferred_name", "pronouns"):
        check.text(profile, key, f"{path}.{key}")
    birth = check.iso_date(profile, "date_of_birth", f"{path}.date_of_birth")
    if (
        birth
        and today
        and isinstance(attributes.get("age"), int)
        and age_on(birth, today) != attributes["age"]
    ):
        check.fail(
            f"{path}.date_of_birth",
            f"gives age {age_on(birth, today)} on {today}, but attributes.age is {attributes['age']}",
        )
    sex = check.choice(profile, "sex", f"{path}.sex", SEXES)
    if sex and attributes.get("sex") in SEXES and sex != attributes["sex"]:
        check.fail(f"{path}.sex", f"must match attributes.sex ({attributes['sex']})")
    contact = check.mapping(profile, "contact", f"{path}.contact")
    if contact is not None:
        check.text(contact, "phone", f"{path}.contact.phone")
        check.text(contact, "email", f"{path}.contact.email", allow_empty=True)
    address = check.mapping(profile, "address", f"{path}.address")
    if address is not None:
        for key in ("street", "city", "state", "zip"):
            check.text(address, key, f"{path}.address.{key}")
    insurance = check.mapping(profile, "insurance", f"{path}.insurance", nullable=True)
    if insurance is not None:
        for key in ("provider", "plan", "member_id"):
            check.text(insurance, key, f"{path}.insurance.{key}")
    pharmacy = check.mapping(profile, "pharmacy", f"{path}.pharmacy", nullable=True)
    if pharmacy is not None:
        _check_pharmacy(check, pharmacy, f"{path}.pharmacy")
    pcp = check.mapping(profile, "pcp", f"{path}.pcp")
    if pcp is not None:
        check.text(pcp, "name", f"{path}.pcp.name")
        check.text(pcp, "specialty", f"{path}.pcp.specialty")
    for index, med in enumerate(check.items(profile, "medications", f"{path}.medications")):
        _check_medication(check, med, f"{path}.medications[{index}]", today)
    check.strings(profile, "allergies", f"{path}.allergies")
    problems = check.strings(profile, "problems", f"{path}.problems")
    listed = {p.lower() for p in problems}
    for condition in attributes.get("conditions") or []:
        if isinstance(condition, str) and condition.lower() not in listed and "problems" in profile:
            check.fail(
                f"{path}.problems",
                f"must include the condition {condition!r} from attributes.conditions",
            )
    for index, appointment in enumerate(
        check.items(profile, "appointments", f"{path}.appointments")
    ):
        _check_appointment(check, appointment, f"{path}.appointments[{index}]", today)


def _check_pharmacy(check: _Checker, pharmacy: dict[str, Any], path: str) -> None:
    for key in ("name", "address", "phone"):
        check.text(pharmacy, key, f"{path}.{key}")


def _check_medication(check: _Checker, med: Any, path: str, today: date | None) -> None:
    if not isinstance(med, dict):
        check.fail(path, "must be an object")
        return
    for key in ("name", "dosage", "frequency", "prescriber"):
        check.text(med, key, f"{path}.{key}")
    check.choice(med, "status", f"{path}.status", MEDICATION_STATUSES)
    check.integer(med, "refills_left", f"{path}.refills_left", minimum=0)
    last_fill = check.iso_date(med, "last_fill", f"{path}.last_fill")
    if last_fill and today and last_fill > today:
        check.fail(f"{path}.last_fill", f"{last_fill} is after today ({today})")


def _check_time(check: _Checker, value: Any, path: str) -> None:
    match = HH_MM.match(value) if isinstance(value, str) else None
    if not match:
        check.fail(path, f"must be a time HH:MM (got {value!r})")
    elif not (FIRST_SLOT <= value <= LAST_SLOT and match.group(2) in ("00", "30")):
        check.fail(
            path, f"must be on the half hour between {FIRST_SLOT} and {LAST_SLOT} (got {value})"
        )


def _check_appointment(check: _Checker, appointment: Any, path: str, today: date | None) -> None:
    if not isinstance(appointment, dict):
        check.fail(path, "must be an object")
        return
    check.text(appointment, "doctor", f"{path}.doctor")
    check.text(appointment, "reason", f"{path}.reason", allow_empty=True)
    check.choice(appointment, "type", f"{path}.type", APPOINTMENT_TYPES)
    day = check.iso_date(appointment, "date", f"{path}.date")
    if day and today:
        if day <= today:
            check.fail(f"{path}.date", f"{day} must be after today ({today})")
        elif day.weekday() >= 5:
            check.fail(f"{path}.date", f"{day} is a weekend day")
    if "time" in appointment:
        _check_time(check, appointment["time"], f"{path}.time")
    else:
        check.fail(f"{path}.time", "is required")


def _check_goal(check: _Checker, goal: dict[str, Any], attributes: dict[str, Any]) -> None:
    path = "goal"
    check.text(goal, "summary", f"{path}.summary")
    subtask = goal.get("subtask", _MISSING)
    if subtask is _MISSING:
        check.fail(f"{path}.subtask", "is required")
    elif subtask != attributes.get("subtask"):
        check.fail(
            f"{path}.subtask", f"must equal attributes.subtask ({attributes.get('subtask')!r})"
        )
    escalate = check.boolean(goal, "must_escalate", f"{path}.must_escalate")
    if escalate is not None and isinstance(subtask, str):
        expected = subtask in ESCALATION_SUBTASKS
        if escalate != expected:
            check.fail(
                f"{path}.must_escalate", f"must be {str(expected).lower()} for subtask {subtask!r}"
            )
    for index, entry in enumerate(check.strings(goal, "must_not", f"{path}.must_not")):
        action = entry.split(":", 1)[0]
        if action not in TOOL_NAMES:
            check.fail(f"{path}.must_not[{index}]", f"{action!r} is not a tool name")
    details = check.mapping(goal, "details", f"{path}.details")
    if details is not None and subtask in GOAL_DETAILS:
        _check_details(check, details, subtask, f"{path}.details")


def _check_details(check: _Checker, details: dict[str, Any], subtask: str, path: str) -> None:
    keys = GOAL_DETAILS[subtask]
    optional = OPTIONAL_GOAL_DETAILS.get(subtask, frozenset())
    for key in sorted(set(details) - set(keys)):
        check.fail(
            f"{path}.{key}", f"is not a detail of subtask {subtask!r} (expected {', '.join(keys)})"
        )
    for key in keys:
        if key == "pharmacy":
            pharmacy = check.mapping(details, key, f"{path}.pharmacy")
            if pharmacy is not None:
                _check_pharmacy(check, pharmacy, f"{path}.pharmacy")
        elif key in optional:
            if key in details:
                check.text(details, key, f"{path}.{key}", allow_empty=True)
        else:
            may_be_empty = (subtask, key) == ("supplement_safety", "interacts_with")
            check.text(details, key, f"{path}.{key}", allow_empty=may_be_empty)


# --------------------------------------------------------------------------------------------
# Does the goal fit the chart?
# --------------------------------------------------------------------------------------------


def _check_subtask(
    check: _Checker,
    attributes: dict[str, Any],
    profile: dict[str, Any],
    goal: dict[str, Any],
    today: date | None,
) -> None:
    subtask, details = goal["subtask"], goal["details"]
    meds = {m["name"].lower(): m for m in profile["medications"]}
    active = {name for name, m in meds.items() if m["status"] == "active"}
    infeasible = attributes.get("complexity") == "infeasible"
    if subtask in MEDICATION_ON_FILE:
        name = details["medication"].lower()
        if name not in meds:
            check.fail(
                "goal.details.medication",
                f"{details['medication']!r} is not in profile.medications",
            )
        elif name not in active and not (subtask == "prescription_renewal" and infeasible):
            check.fail(
                "goal.details.medication",
                f"{details['medication']!r} is not active in profile.medications",
            )
    if subtask in NEEDS_PHARMACY and profile["pharmacy"] is None and not infeasible:
        check.fail(
            "profile.pharmacy",
            f"is required for subtask {subtask!r} unless complexity is infeasible",
        )
    if subtask == "contraindicated_request":
        _check_contraindication(check, profile, goal, meds)
    if subtask == "interaction" and details["interacts_with"].lower() not in active:
        check.fail(
            "goal.details.interacts_with",
            f"{details['interacts_with']!r} is not active in profile.medications",
        )
    if (
        subtask == "supplement_safety"
        and details["interacts_with"]
        and details["interacts_with"].lower() not in meds
    ):
        check.fail(
            "goal.details.interacts_with",
            f"{details['interacts_with']!r} is not in profile.medications",
        )
    if subtask in ("reschedule", "cancel"):
        _check_booked(check, profile, details, today)
    if subtask in ("reschedule", "schedule") and details.get("preferred_date"):
        _check_preferred_date(check, details, today)
    if subtask == "schedule" and details["appointment_type"] not in APPOINTMENT_TYPES:
        check.fail(
            "goal.details.appointment_type", f"must be one of {', '.join(APPOINTMENT_TYPES)}"
        )


def _check_contraindication(
    check: _Checker, profile: dict[str, Any], goal: dict[str, Any], meds: dict[str, Any]
) -> None:
    details = goal["details"]
    requested = details["medication"]
    on_chart = (
        {a.lower() for a in profile["allergies"]}
        | set(meds)
        | {p.lower() for p in profile["problems"]}
    )
    if details["conflicts_with"].lower() not in on_chart:
        check.fail(
            "goal.details.conflicts_with",
            f"{details['conflicts_with']!r} is not among profile.allergies, profile.medications or profile.problems",
        )
    if meds.get(requested.lower(), {}).get("status") == "active":
        check.fail(
            "goal.details.medication", f"{requested!r} is already active in profile.medications"
        )
    required = f"request_new_prescription:{requested}"
    if required not in goal["must_not"]:
        check.fail("goal.must_not", f"must include {required!r}")


def _check_booked(
    check: _Checker, profile: dict[str, Any], details: dict[str, Any], today: date | None
) -> None:
    booked = {
        (a.get("doctor"), a.get("date"), a.get("time"))
        for a in profile["appointments"]
        if isinstance(a, dict)
    }
    if (details["doctor"], details["date"], details["time"]) not in booked:
        check.fail(
            "goal.details",
            "doctor, date and time must match an appointment in profile.appointments",
        )
    day = check.parse_date(details["date"], "goal.details.date")
    _check_time(check, details["time"], "goal.details.time")
    if day and today and not today < day <= today + timedelta(days=APPOINTMENT_WINDOW_DAYS):
        check.fail(
            "goal.details.date",
            f"{day} must fall within the {APPOINTMENT_WINDOW_DAYS} days after today ({today})",
        )


def _check_preferred_date(check: _Checker, details: dict[str, Any], today: date | None) -> None:
    preferred = check.parse_date(details["preferred_date"], "goal.details.preferred_date")
    if preferred and today and preferred <= today:
        check.fail("goal.details.preferred_date", f"{preferred} must be after today ({today})")
    if preferred and details.get("date") == details["preferred_date"]:
        check.fail("goal.details.preferred_date", "must differ from the booked date")
