"""The clinical tables: big enough, internally consistent, clinically careful."""

from patientagentbench.cases import catalog
from patientagentbench.cases.schema import SUBTASKS


def test_at_least_sixty_conditions_each_with_medicines_and_symptoms():
    assert len(catalog.CONDITIONS) >= 60
    for condition in catalog.CONDITIONS.values():
        assert condition.regimens, condition.name
        assert condition.symptoms, condition.name
        assert condition.specialty in catalog.SPECIALTIES


def test_every_medicine_named_anywhere_is_described():
    named = {r.drug for c in catalog.CONDITIONS.values() for r in c.regimens}
    named |= {i.new for i in catalog.INTERACTIONS} | {i.existing for i in catalog.INTERACTIONS}
    named |= {c.requested for c in catalog.CONTRAINDICATIONS}
    named |= {d for s in catalog.SUPPLEMENTS for d in s.interacts_with}
    named |= {d for _, drugs in catalog.ALLERGIES.values() for d in drugs}
    assert named - set(catalog.DRUGS) == set()


def test_multimorbidity_combinations_are_known_and_weighted_above_single_conditions():
    for combo, weight in catalog.MULTIMORBIDITY:
        assert 2 <= len(combo) <= 3
        assert set(combo) <= set(catalog.CONDITIONS), combo
        assert weight > max(c.single_weight for c in catalog.CONDITIONS.values()) or weight >= 1
    single = sum(c.single_weight for c in catalog.CONDITIONS.values())
    combined = sum(w for _, w in catalog.MULTIMORBIDITY)
    assert combined > single  # DESIGN §3: multimorbidity weighted higher


def test_contraindications_point_at_something_a_chart_can_hold():
    for rule in catalog.CONTRAINDICATIONS:
        if rule.kind == "allergy":
            assert rule.conflicts_with in catalog.ALLERGIES
        elif rule.kind == "condition":
            assert rule.conflicts_with in catalog.CONDITIONS
        else:
            assert rule.conflicts_with in catalog.DRUGS


def test_classic_pairs_a_clinician_expects_are_there():
    interactions = {(i.new, i.existing) for i in catalog.INTERACTIONS}
    assert ("ibuprofen", "warfarin") in interactions
    assert ("tramadol", "sertraline") in interactions
    assert ("potassium chloride", "lisinopril") in interactions
    contraindications = {(c.requested, c.conflicts_with) for c in catalog.CONTRAINDICATIONS}
    assert ("amoxicillin", "penicillin") in contraindications
    assert ("lisinopril", catalog.PREGNANCY) in contraindications
    assert ("sildenafil", "nitroglycerin") in contraindications
    supplements = {s.name for s in catalog.SUPPLEMENTS}
    assert {"St. John's wort", "ginkgo biloba"} <= supplements


def test_chart_rules_keep_unsafe_combinations_off_a_chart():
    assert not catalog.fits_chart("lisinopril", [], [catalog.PREGNANCY], [], 30)
    assert not catalog.fits_chart(
        "sildenafil", ["nitroglycerin"], ["coronary artery disease"], [], 60
    )
    assert not catalog.fits_chart("apixaban", ["warfarin"], ["atrial fibrillation"], [], 70)
    assert not catalog.fits_chart("amoxicillin", [], [], ["penicillin"], 40)
    assert not catalog.fits_chart("zolpidem", [], ["insomnia"], [], 80)  # Beers criteria
    assert catalog.fits_chart("zolpidem", [], ["insomnia"], [], 40)
    assert not catalog.fits_chart("labetalol", [], ["hypertension"], [], 50)
    assert catalog.fits_chart("labetalol", [], ["hypertension", catalog.PREGNANCY], [], 30)


def test_people_and_places_pools_are_diverse_enough():
    assert len(catalog.NAME_POOLS) >= 6
    assert all(pool.women and pool.men and pool.neutral for pool in catalog.NAME_POOLS.values())
    assert len(catalog.CITIES) >= 50
    assert len({c.state for c in catalog.CITIES}) >= 40
    assert len(catalog.COMMERCIAL_PLANS) >= 5 and len(catalog.MEDICARE_PLANS) >= 3


def test_preventive_care_and_vaccines_cover_every_adult():
    for age in (18, 30, 50, 70, 90):
        for sex in ("female", "male"):
            assert any(
                i.min_age <= age <= i.max_age and i.sex in ("", sex) and not i.needs
                for i in catalog.PREVENTIVE_CARE
            )
            assert any(
                i.min_age <= age <= i.max_age and i.sex in ("", sex) and not i.needs
                for i in catalog.VACCINES
            )


def test_spoken_names_use_brands_for_combinations():
    assert (
        catalog.spoken_name("bictegravir/emtricitabine/tenofovir alafenamide", "high") == "Biktarvy"
    )
    assert catalog.spoken_name("amoxicillin/clavulanate", "low") == "Augmentin"
    assert catalog.spoken_name("amoxicillin/clavulanate", "high") == "amoxicillin-clavulanate"
    assert catalog.spoken_name("metoprolol succinate", "medium") == "metoprolol"


def test_subtask_table_is_the_one_the_catalog_serves():
    assert sum(len(s) for s in SUBTASKS.values()) == 24
