"""Clinical and demographic tables the case generators draw from.

Everything here is plain data: conditions with the medicines an outpatient clinic would
really have on file for them, the interactions and contraindications a careful agent should
catch, supplements, and the pools names, addresses, insurers and pharmacies come from. A
clinician reads these tables, so doses are ordinary adult outpatient doses and every pairing
is one a pharmacist would flag.

The tables live by domain in the modules of this package; every name is re-exported here, so
`catalog.CONDITIONS` and friends read as before.
"""

from __future__ import annotations

from .care import PREVENTIVE_CARE, VACCINES, CareItem
from .conditions import CONDITIONS, MULTIMORBIDITY, PREGNANCY, Condition, Regimen
from .drugs import DRUGS, WITHDRAWN_DRUGS, Drug
from .emergencies import (
    ANTICOAGULANTS,
    BLEEDING_EMERGENCY,
    CRISES_BY_CONDITION,
    GENERIC_CRISES,
    GENERIC_EMERGENCIES,
    RED_FLAG_NEEDS,
    SUICIDAL_PHRASES,
)
from .interactions import (
    ALLERGIES,
    CONTRAINDICATIONS,
    INTERACTIONS,
    SUPPLEMENTS,
    Contraindication,
    Interaction,
    Supplement,
)
from .people import NAME_POOL_WEIGHTS, NAME_POOLS, NICKNAMES, NamePool
from .places import (
    CITIES,
    COMMERCIAL_PLANS,
    INDEPENDENT_PHARMACY_FORMATS,
    KAISER_STATES,
    MEDICAID_NAMES,
    MEDICARE_PLANS,
    NATIONAL_PHARMACIES,
    PCP_SPECIALTIES,
    REGIONAL_PHARMACIES,
    SPECIALTIES,
    STREETS,
    City,
)
from .prescribing import (
    AVOID_PAIRS,
    AVOID_WITH_CONDITION,
    BEERS_AVOID,
    BRAND_BY_DOSE,
    PREGNANCY_ONLY,
    SPLITTABLE,
    SPOKEN_NAMES,
    SUPPLEMENT_LIKE,
    THERAPEUTIC_GROUPS,
    clashing_pairs,
    condition_fits,
    drug,
    drugs_for,
    fits_chart,
    spoken_name,
)

__all__ = [
    "ALLERGIES",
    "ANTICOAGULANTS",
    "AVOID_PAIRS",
    "AVOID_WITH_CONDITION",
    "BEERS_AVOID",
    "BLEEDING_EMERGENCY",
    "BRAND_BY_DOSE",
    "CITIES",
    "COMMERCIAL_PLANS",
    "CONDITIONS",
    "CONTRAINDICATIONS",
    "CRISES_BY_CONDITION",
    "CareItem",
    "City",
    "Condition",
    "Contraindication",
    "DRUGS",
    "Drug",
    "GENERIC_CRISES",
    "GENERIC_EMERGENCIES",
    "INDEPENDENT_PHARMACY_FORMATS",
    "INTERACTIONS",
    "Interaction",
    "KAISER_STATES",
    "MEDICAID_NAMES",
    "MEDICARE_PLANS",
    "MULTIMORBIDITY",
    "NAME_POOLS",
    "NAME_POOL_WEIGHTS",
    "NATIONAL_PHARMACIES",
    "NICKNAMES",
    "NamePool",
    "PCP_SPECIALTIES",
    "PREGNANCY",
    "PREGNANCY_ONLY",
    "PREVENTIVE_CARE",
    "RED_FLAG_NEEDS",
    "REGIONAL_PHARMACIES",
    "Regimen",
    "SPECIALTIES",
    "SPLITTABLE",
    "SPOKEN_NAMES",
    "STREETS",
    "SUICIDAL_PHRASES",
    "SUPPLEMENTS",
    "SUPPLEMENT_LIKE",
    "Supplement",
    "THERAPEUTIC_GROUPS",
    "VACCINES",
    "WITHDRAWN_DRUGS",
    "clashing_pairs",
    "condition_fits",
    "drug",
    "drugs_for",
    "fits_chart",
    "spoken_name",
]
