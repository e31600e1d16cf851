"""Case attributes as a person reads them: grouped, banded, no snake_case or raw ages."""

from patientagentbench.cases.attribute_labels import (
    age_band,
    attribute_label,
    banded,
    filter_label,
    option_groups,
    option_label,
    stratum_label,
    value_label,
)


def test_ages_fall_in_bands_with_under_18_for_imported_cases():
    assert [age_band(a) for a in (5, 17, 18, 29, 30, 44, 45, 64, 65, 92)] == [
        "under-18", "under-18", "18-29", "18-29", "30-44", "30-44", "45-64", "45-64", "65+", "65+"
    ]  # fmt: skip
    assert age_band("27") == "18-29"
    assert age_band("twenty") is None and age_band(True) is None and age_band(None) is None


def test_banded_replaces_the_raw_age_and_drops_the_redundant_group():
    flat = {"age": 27, "age_group": "18-29", "traits.anxiety": "high"}
    assert banded(flat) == {"age": "18-29", "traits.anxiety": "high"}
    assert banded({"age_group": "65+"}) == {"age": "65+"}
    assert banded({"age": "unknown"}) == {}


def test_labels_read_as_words():
    assert attribute_label("traits.health_literacy") == "Health literacy"
    assert attribute_label("care_preference") == "Care preference"
    assert value_label("subtask", "provider_access") == "provider access"
    assert value_label("age", "45-64") == "45–64"
    assert option_label("traits.health_literacy", "high") == "Health literacy: high"
    assert filter_label("age=under-18") == "Age: under 18"
    assert filter_label("") == ""


def test_option_groups_are_one_per_attribute_in_a_readable_order():
    values = {
        "traits.health_literacy": {"high", "low", "medium"},
        "age": {"65+", "18-29", "45-64"},
        "subtask": {"provider_access", "schedule"},
        "category": {"clinical", "administrative"},
    }
    groups = option_groups(values)
    assert [g.label for g in groups] == ["Category", "Subtask", "Age", "Health literacy"]
    literacy = groups[-1].options
    assert [o.label for o in literacy] == [
        "Health literacy: low",
        "Health literacy: medium",
        "Health literacy: high",
    ]
    assert [o.value for o in literacy][0] == "traits.health_literacy=low"  # what the filter reads
    assert [o.label for o in groups[2].options] == ["Age: 18–29", "Age: 45–64", "Age: 65+"]
    every_label = [o.label for g in groups for o in g.options]
    assert not any("_" in text or "=" in text for text in every_label)


def test_strata_read_as_words():
    assert stratum_label("workflow_accuracy", 1, "Workflow accuracy") == (
        "Workflow accuracy: jury scored 1"
    )
    assert stratum_label("outcome", "failed", "") == "Automatic checks: failed"
    assert stratum_label("model", "sim-careless", "") == "Model: sim-careless"
    assert "unscored" not in stratum_label("unscored", "-", "")
