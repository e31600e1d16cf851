"""What a prescriber would never put on one chart, and the look-ups the generators use.

Conditions that rule medicines out, the Beers list from 65 on, one medicine per therapeutic
group, pairs never written together; and how a medicine's name is said aloud.
"""

from __future__ import annotations

from .conditions import CONDITIONS, PREGNANCY, Condition
from .drugs import DRUGS, Drug
from .interactions import ALLERGIES, CONTRAINDICATIONS, INTERACTIONS

# Medicines a condition rules out (beyond the request-level contraindications above).
AVOID_WITH_CONDITION: dict[str, frozenset[str]] = {
    PREGNANCY: frozenset(
        {
            "lisinopril",
            "losartan",
            "sacubitril/valsartan",
            "atorvastatin",
            "rosuvastatin",
            "simvastatin",
            "hydrochlorothiazide",
            "spironolactone",
            "methotrexate",
            "warfarin",
            "isotretinoin",
            "topiramate",
            "doxycycline",
            "tretinoin cream",
            "ibuprofen",
            "naproxen",
            "meloxicam",
            "semaglutide",
            "tirzepatide",
            "empagliflozin",
            "glipizide",
            "sitagliptin",
            "finasteride",
            "alendronate",
            "lithium",
            "amlodipine",  # labetalol and nifedipine are the usual choices in pregnancy
        }
    ),
    "chronic kidney disease stage 3": frozenset({"naproxen", "meloxicam", "ibuprofen"}),
    "cirrhosis": frozenset({"naltrexone", "naproxen", "meloxicam", "ibuprofen"}),
    # Only carvedilol, metoprolol succinate or bisoprolol have outcome evidence in heart failure.
    "heart failure": frozenset(
        {"diltiazem", "cilostazol", "naproxen", "meloxicam", "metoprolol tartrate", "propranolol"}
    ),
    "asthma": frozenset({"propranolol", "timolol eye drops"}),
    "epilepsy": frozenset({"bupropion", "tramadol"}),
    "gout": frozenset({"hydrochlorothiazide"}),
    "coronary artery disease": frozenset({"sumatriptan"}),
    "migraine with aura": frozenset({"ethinyl estradiol/norgestimate"}),
    "breast cancer (in remission)": frozenset({"estradiol patch", "progesterone"}),
    "history of deep vein thrombosis": frozenset(
        {"estradiol patch", "ethinyl estradiol/norgestimate"}
    ),
    "Parkinson's disease": frozenset({"metoclopramide"}),
    "Alzheimer's disease": frozenset({"oxybutynin", "zolpidem"}),
    "opioid use disorder": frozenset(
        {"tramadol", "codeine/acetaminophen", "alprazolam", "clonazepam", "zolpidem"}
    ),
}

# AGS Beers Criteria: medicines to avoid from 65 on when an alternative exists.
BEERS_AVOID = frozenset(
    {
        "zolpidem",
        "hydroxyzine",
        "cyclobenzaprine",
        "oxybutynin",
        "clonazepam",
        "alprazolam",
        "diphenhydramine",
        "glipizide",
        "meclizine",
        "naproxen",
        "meloxicam",
    }
)

# One medicine per group on a chart: two would be a duplication a pharmacist flags.
THERAPEUTIC_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"warfarin", "apixaban", "clopidogrel"}),
    frozenset({"atorvastatin", "rosuvastatin", "simvastatin"}),
    frozenset({"lisinopril", "losartan", "sacubitril/valsartan"}),
    frozenset({"omeprazole", "pantoprazole"}),
    frozenset(
        {"metoprolol succinate", "metoprolol tartrate", "carvedilol", "propranolol", "labetalol"}
    ),
    frozenset({"sertraline", "escitalopram", "fluoxetine", "duloxetine"}),
    frozenset({"fluticasone/salmeterol", "budesonide/formoterol"}),
    frozenset({"methylphenidate", "amphetamine/dextroamphetamine"}),
    frozenset({"semaglutide", "tirzepatide", "sitagliptin"}),
    frozenset({"anastrozole", "tamoxifen"}),
    frozenset({"aripiprazole", "risperidone", "quetiapine"}),
    frozenset({"diltiazem", "amlodipine", "nifedipine"}),
    frozenset({"naproxen", "meloxicam", "ibuprofen"}),
    frozenset({"trazodone", "zolpidem"}),
)

# Pairs never written together, on top of the interactions and contraindications above.
AVOID_PAIRS: tuple[frozenset[str], ...] = (
    frozenset({"tamoxifen", "bupropion"}),
    frozenset({"tamoxifen", "fluoxetine"}),
    frozenset({"clopidogrel", "omeprazole"}),
    # A non-dihydropyridine calcium blocker with a beta blocker risks heart block.
    frozenset({"diltiazem", "metoprolol tartrate"}),
    frozenset({"diltiazem", "metoprolol succinate"}),
    frozenset({"diltiazem", "carvedilol"}),
    frozenset({"diltiazem", "labetalol"}),
)


def condition_fits(condition: Condition, age: int, sex: str) -> bool:
    if condition.sex and condition.sex != sex:
        return False
    return condition.min_age <= age <= condition.max_age


def drugs_for(conditions: list[str]) -> set[str]:
    """Every medicine a chart with these conditions could plausibly list."""
    return {r.drug for name in conditions for r in CONDITIONS[name].regimens}


def drug(name: str) -> Drug:
    return DRUGS.get(name) or Drug(name)


def clashing_pairs() -> list[frozenset[str]]:
    """Every pair of medicines that must not both be active on one chart."""
    pairs = [frozenset({i.new, i.existing}) for i in INTERACTIONS]
    pairs += [
        frozenset({c.requested, c.conflicts_with})
        for c in CONTRAINDICATIONS
        if c.kind == "medication"
    ]
    return pairs + list(AVOID_PAIRS)


# Chosen for hypertension only because the patient is pregnant.
PREGNANCY_ONLY = frozenset({"labetalol"})
# Vitamins and supplements: never the medicine a prescriber stops or a patient is refused.
SUPPLEMENT_LIKE = frozenset({
    "prenatal vitamin", "folic acid", "cyanocobalamin", "calcium carbonate with vitamin D", "ferrous sulfate",
})  # fmt: skip


def fits_chart(
    name: str, chart: list[str], conditions: list[str], allergies: list[str], age: int
) -> bool:
    """Whether a prescriber could add `name` to a chart already holding `chart` (active drugs)."""
    if name in chart:
        return False
    if name in PREGNANCY_ONLY and PREGNANCY not in conditions:
        return False
    if age >= 65 and name in BEERS_AVOID:
        return False
    if any(name in AVOID_WITH_CONDITION.get(c, ()) for c in conditions):
        return False
    if any(name in ALLERGIES.get(a, (0, ()))[1] for a in allergies):
        return False
    if any(name in group and group & set(chart) for group in THERAPEUTIC_GROUPS):
        return False
    return not any(pair == frozenset({name, other}) for pair in clashing_pairs() for other in chart)


# Tablets a patient may safely split: plain tablets, never capsules, patches or extended release.
SPLITTABLE = frozenset({
    "metformin", "lisinopril", "losartan", "amlodipine", "hydrochlorothiazide", "atorvastatin", "rosuvastatin",
    "simvastatin", "levothyroxine", "sertraline", "escitalopram", "trazodone", "warfarin", "carvedilol",
    "metoprolol tartrate", "furosemide", "spironolactone", "allopurinol", "buspirone", "labetalol", "methimazole",
    "glipizide", "quetiapine", "aripiprazole", "risperidone", "prednisone", "lamotrigine",
})  # fmt: skip

# One molecule, two brands: semaglutide is Ozempic for diabetes and Wegovy for weight.
BRAND_BY_DOSE = {("semaglutide", "2.4 mg"): "Wegovy"}

# Salt forms and combination names nobody says out loud.
SPOKEN_NAMES = {
    "metoprolol succinate": "metoprolol",
    "metoprolol tartrate": "metoprolol",
    "calcium carbonate with vitamin D": "calcium with vitamin D",
}


def spoken_name(name: str, literacy: str) -> str:
    """A medicine as a patient says it: combinations by brand unless they know the parts."""
    if "/" in name:
        info = drug(name)
        if literacy == "high" and name.count("/") == 1 or not info.brand:
            return name.replace("/", "-")
        return info.brand
    return SPOKEN_NAMES.get(name, name)
