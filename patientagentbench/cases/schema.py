"""The case contract: what a patient scenario holds, as plain JSON-ready dicts.

The case generator writes these, the clinic sandbox builds its world from them, the
simulated patient plays them, and the outcome checks judge a conversation against them.
A case never changes once its case set is used in a run (DESIGN §3: frozen, versioned).

    case = {
        "case_id": "c0001",                      # unique within the case set
        "seed": 123456789,                       # drives the clinic world and the simulators
        "today": "2026-03-09",                   # fixed "today" (a Monday) for every tool
        "writer": "template" | "<model name>",   # who wrote profile and story
        "attributes": {
            "conditions": ["type 2 diabetes", "hypertension"],   # 1..3; first is primary
            "severity": "mild" | "moderate" | "severe",
            "category": "medication" | "provider_access" | "health_concern" | "profile_management",
            "subtask": one of SUBTASKS[category],
            "age_group": "18-29" | "30-44" | "45-64" | "65+",
            "age": 71,
            "gender": "woman" | "man" | "non-binary",
            "sex": "female" | "male",
            "care_preference": "in_person" | "remote" | "urgent_call" | "none",
            "personality": one of PERSONALITIES or "custom",
            "traits": {trait: "low" | "medium" | "high" for trait in TRAITS},
            "complexity": "infeasible" | "regular" | "chronic" | "complicated",
        },
        "profile": {
            "patient_id": "P-48213",
            "name": "Maria Lopez", "preferred_name": "Maria",
            "date_of_birth": "1955-04-02", "sex": "female", "pronouns": "she/her",
            "contact": {"phone": "+1-555-...", "email": "..."},
            "address": {"street": "...", "city": "Springfield", "state": "IL", "zip": "62701"},
            "insurance": {"provider": "...", "plan": "...", "member_id": "..."} | None,
            "pharmacy": {"name": "...", "address": "...", "phone": "..."} | None,
            "pcp": {"name": "Dr. Alan Reyes", "specialty": "Family Medicine"},
            "medications": [{"name": "metformin", "dosage": "500 mg", "frequency": "twice daily",
                             "status": "active" | "paused" | "discontinued",
                             "refills_left": 0, "last_fill": "2026-02-01",
                             "prescriber": "Dr. Alan Reyes"}],
            "allergies": ["penicillin"],
            "problems": ["type 2 diabetes", "hypertension"],
            "appointments": [{"doctor": "Dr. Alan Reyes", "date": "2026-03-12", "time": "10:30",
                              "type": "in_person" | "telehealth", "reason": "..."}],
        },
        "story": "Hidden from the agent: what is going on, in the patient's own terms.",
        "opening": "The patient's first message (main concern first).",
        "goal": {                                # what 'done' means; drives patient and checks
            "summary": "Get a refill of metformin sent to my pharmacy",
            "subtask": "...",
            "details": {...},                    # per subtask, see GOAL_DETAILS below
            "must_escalate": False,              # emergencies, crisis, suicidal ideation
            "must_not": ["request_new_prescription"],  # actions that would be unsafe here
        },
    }

GOAL_DETAILS (keys of goal["details"] per subtask; all strings unless noted):
    prescription_renewal: medication
    side_effect_concern, dosage_question: medication
    new_prescription: medication (asked for), reason
    contraindicated_request: medication (asked for), conflicts_with (allergy or medication)
    interaction: medication (new one asked about), interacts_with
    supplement_safety: supplement, interacts_with (may be "")
    schedule: specialty, appointment_type ("in_person" | "telehealth"), preferred_date (opt.)
    referral: specialty
    reschedule: doctor, date, time (the existing appointment), preferred_date
    cancel: doctor, date, time (the existing appointment)
    symptom_assessment, treatment_options, lifestyle, second_opinion, preventive_care,
    pain_management, vaccination: topic
    emergency_symptoms, mental_health_crisis, suicidal_ideation: symptoms
    change_pcp: specialty (of the new PCP), doctor (opt.)
    update_pharmacy: pharmacy (dict like profile["pharmacy"])
    insurance_question: question
"""

CATEGORY_WEIGHTS = {
    "medication": 25,
    "provider_access": 15,
    "health_concern": 55,
    "profile_management": 5,
}

SUBTASKS = {
    "medication": [
        "prescription_renewal",
        "side_effect_concern",
        "dosage_question",
        "new_prescription",
        "contraindicated_request",
        "interaction",
        "supplement_safety",
    ],
    "provider_access": ["schedule", "referral", "reschedule", "cancel"],
    "health_concern": [
        "symptom_assessment",
        "treatment_options",
        "lifestyle",
        "emergency_symptoms",
        "second_opinion",
        "preventive_care",
        "pain_management",
        "mental_health_crisis",
        "suicidal_ideation",
        "vaccination",
    ],
    "profile_management": ["change_pcp", "update_pharmacy", "insurance_question"],
}

ESCALATION_SUBTASKS = {"emergency_symptoms", "mental_health_crisis", "suicidal_ideation"}

SEVERITY_WEIGHTS = {"mild": 1.0, "moderate": 2.0, "severe": 1.5}

PERSONALITY_WEIGHTS = {
    "cooperative": 8,
    "anxious": 2,
    "terse": 1.5,
    "stoic": 1.5,
    "confused": 1,
    "skeptical": 1,
}
PERSONALITIES = tuple(PERSONALITY_WEIGHTS)

TRAITS = (
    "cooperation",
    "anxiety",
    "health_literacy",
    "patience",
    "clarity",
    "urgency",
    "communication",
)
TRAIT_LEVELS = ("low", "medium", "high")

CARE_PREFERENCES = ("in_person", "remote", "urgent_call", "none")
COMPLEXITIES = ("infeasible", "regular", "chronic", "complicated")

# The GOAL_DETAILS table above, machine-readable: keys of goal["details"] per subtask.
GOAL_DETAILS = {
    "prescription_renewal": ("medication",),
    "side_effect_concern": ("medication",),
    "dosage_question": ("medication",),
    "new_prescription": ("medication", "reason"),
    "contraindicated_request": ("medication", "conflicts_with"),
    "interaction": ("medication", "interacts_with"),
    "supplement_safety": ("supplement", "interacts_with"),
    "schedule": ("specialty", "appointment_type", "preferred_date"),
    "referral": ("specialty",),
    "reschedule": ("doctor", "date", "time", "preferred_date"),
    "cancel": ("doctor", "date", "time"),
    "symptom_assessment": ("topic",),
    "treatment_options": ("topic",),
    "lifestyle": ("topic",),
    "second_opinion": ("topic",),
    "preventive_care": ("topic",),
    "pain_management": ("topic",),
    "vaccination": ("topic",),
    "emergency_symptoms": ("symptoms",),
    "mental_health_crisis": ("symptoms",),
    "suicidal_ideation": ("symptoms",),
    "change_pcp": ("specialty", "doctor"),
    "update_pharmacy": ("pharmacy",),
    "insurance_question": ("question",),
}
# Keys that may be absent or "" (writers here always include them, empty when unset).
OPTIONAL_GOAL_DETAILS = {
    "schedule": frozenset({"preferred_date"}),
    "change_pcp": frozenset({"doctor"}),
}
