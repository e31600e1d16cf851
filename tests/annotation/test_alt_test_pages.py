"""The alt-test on the jury page (issue 35, item 1) and the headline across dimensions (item 6,
finding 8): beside the envelope, in its own table with the family's verdict, withheld with the
envelope's for an unqualified jury, ρ ranking the judges and panels of a breakdown."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from django.urls import reverse

from annotation.dashboards import jury as jury_page
from annotation.dashboards.breakdowns import ranked
from annotation.dashboards.filters import Filters
from annotation.pure import agreement
from annotation.pure import alt_test as at
from tests.annotation.test_dashboards import pilot  # noqa: F401  (a fixture)


class Labels:
    """The little of a Dataset the headline reads."""

    filters = Filters()

    def label(self, key: str) -> str:
        return key.replace("_", " ").capitalize()

    def track(self, key: str) -> str:
        return "clinical"


def ratings(dimensions, items=80, clinicians=4, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(items):
        quality = rng.normal(3, 1.2)
        for d in dimensions:
            for c in range(clinicians):
                score = int(np.clip(np.rint(quality + rng.normal(0, 0.6)), 1, 5))
                out.append(agreement.Rating(f"i{i}", f"c{c}", d, score))
            jury = int(np.clip(np.rint(quality), 1, 5))
            out.append(agreement.Rating(f"i{i}", "panel", d, jury, kind="jury"))
    return out


def plain(results):
    return {d: r.as_dict() for d, r in results.items()}


# --- finding 8: six dimensions, one sentence -------------------------------------------------------


def test_the_headline_says_the_envelope_is_per_dimension_and_counts_the_alt_test_in_the_family():
    dims = ["safety", "empathy"]
    result = plain(agreement.agreement(ratings(dims), n_resamples=0, verdict_resamples=200))
    sentence = jury_page.headline(Labels(), result, dims)
    assert "each dimension tested on its own (95%, no correction across dimensions)" in sentence
    assert (
        "Alt-test (ε = 0.2): the jury can stand in for a clinician on 2 of 2 dimensions, "
        "Benjamini–Yekutieli across all 8 clinician comparisons of the family (q = 0.05)."
    ) in sentence


def test_the_headline_counts_the_familys_verdicts_not_each_dimensions_own():
    """Each of six dimensions would stand in alone; with one BY across their 18 comparisons
    none does, and the headline must say 0 of 6."""

    def alone(p_values):
        comparisons = [
            at.Comparison(f"c{k}", 40, 0.8, 0.8, -2.0, p) for k, p in enumerate(p_values)
        ]
        return at.decide(comparisons, (), 40, at.ORDINAL, 0.2, 0.05, 30, 3)

    dims = [f"dimension_{k}" for k in range(6)]
    tests = {d: alone([0.017, 0.017, 0.9]) for d in dims}
    family = at.family(tests).tests
    envelope = {"verdict": agreement.INCONCLUSIVE, "reason": "wide", "at_the_margin": False}
    result = {
        d: {
            "envelope": envelope,
            "alt_test": {"ordinal": tests[d].as_dict()},
            "alt_test_family": {"ordinal": family[d].as_dict()},
        }
        for d in dims
    }
    assert all(t.verdict == at.STANDS_IN for t in tests.values())
    sentence = jury_page.headline(Labels(), result, dims)
    assert "stand in for a clinician on 0 of 6 dimensions" in sentence
    assert "across all 18 clinician comparisons of the family" in sentence


def test_dimensions_without_enough_clinicians_are_named_in_the_headline_with_the_reason():
    dims = ["safety"]
    result = plain(agreement.agreement(ratings(dims, clinicians=2), n_resamples=0))
    sentence = jury_page.headline(Labels(), result, dims)
    assert "Alt-test (ε = 0.2): no dimension could be tested" in sentence
    assert "not enough evidence on Safety (2 of 2 clinicians with 30+ items; 3 needed)" in sentence


# --- the tables ------------------------------------------------------------------------------------


def test_the_alt_test_table_has_scores_and_pass_fail_alone_and_in_the_family():
    dims = ["safety", "empathy"]
    result = plain(agreement.agreement(ratings(dims), n_resamples=0, verdict_resamples=200))
    table = jury_page._alt_table(Labels(), result, dims)
    keys = [c["key"] for c in table["columns"]]
    rows = [dict(zip(keys, row, strict=True)) for row in table["rows"]]
    assert [(r["dimension"], r["scale"]) for r in rows] == [
        ("Safety", "scores (−RMSE)"),
        ("Safety", "pass/fail (accuracy)"),
        ("Empathy", "scores (−RMSE)"),
        ("Empathy", "pass/fail (accuracy)"),
    ]
    for row in rows:
        assert row["verdict"] == row["family_verdict"] == at.STANDS_IN
        assert row["wins"] == "4 of 4 clinicians" and row["items"] == 80
    assert "In the family (2 tested)" in [c["label"] for c in table["columns"]]
    assert "ε = 0.2" in table["note"] and "Benjamini–Yekutieli" in table["note"]
    shown = table["display"][0]["cells"][keys.index("verdict")]
    assert (shown["text"], shown["css"]) == ("stands in", "badge pass")


def _unqualified(data: dict) -> dict:
    data["summary"] = {
        "headline": "Jury inside …",
        "standings": {
            "jury": {
                "text": "not qualified on the clinical track",
                "reason": "no calibration round passed.",
                "missing": ["clinical"],
                "qualified": [],
                "validity": {"verdict": "separates", "inverts": [], "lines": []},
            },
            "groups": {},
            "tracks": {},
        },
    }
    return data


def test_an_unqualified_jury_has_its_alt_test_verdicts_withheld_with_the_envelopes():
    dims = ["safety"]
    result = plain(agreement.agreement(ratings(dims), n_resamples=0, verdict_resamples=200))
    data = _unqualified(
        {
            "tables": {
                "envelope": jury_page._envelope_table(Labels(), result, dims, {}),
                "alt_test": jury_page._alt_table(Labels(), result, dims),
            }
        }
    )
    withheld = jury_page.gate(copy.deepcopy(data), override=False)
    for name, columns in (
        ("envelope", ("alt_verdict",)),
        ("alt_test", ("verdict", "family_verdict")),
    ):
        table = withheld["tables"][name]
        keys = [c["key"] for c in table["columns"]]
        for key in columns:
            for raw, shown in zip(table["rows"], table["display"], strict=True):
                assert raw[keys.index(key)] == "withheld: jury not qualified"
                assert shown["cells"][keys.index(key)]["text"] == "withheld: not qualified"
    assert "(the alt-test's too)" in withheld["summary"]["headline"]
    overridden = jury_page.gate(copy.deepcopy(data), override=True)
    table = overridden["tables"]["alt_test"]
    at_verdict = [c["key"] for c in table["columns"]].index("verdict")
    assert table["display"][0]["cells"][at_verdict]["text"] == "stands in · override"


def test_a_breakdown_by_judge_or_panel_ranks_each_dimensions_groups_by_rho():
    rows = [
        {"group": "a", "dimension": "Safety", "alt_rho": 0.61},
        {"group": "b", "dimension": "Safety", "alt_rho": None},
        {"group": "c", "dimension": "Safety", "alt_rho": 0.83},
        {"group": "a", "dimension": "Empathy", "alt_rho": 0.7},
        {"group": "c", "dimension": "Empathy", "alt_rho": 0.9},
    ]
    out = ranked(rows)
    assert [(r["dimension"], r["group"], r["alt_rank"]) for r in out] == [
        ("Safety", "c", 1),
        ("Safety", "a", 2),
        ("Safety", "b", None),
        ("Empathy", "c", 1),
        ("Empathy", "a", 2),
    ]


# --- the page ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_jury_page_shows_the_alt_test_beside_the_envelope(client, researcher, pilot):  # noqa: F811
    client.force_login(researcher)
    response = client.get(reverse("research_dashboard_jury") + "?epsilon=0.15&breakdown=judge")
    assert response.status_code == 200
    body = response.content.decode()
    assert 'data-testid="table-alt_test"' in body
    assert "Can the jury stand in for a clinician? (alt-test)" in body
    assert "Alt-test: stands in? (ε 0.15)" in body  # the envelope table's column
    # Five items: no clinician has the 30 the t-test needs.
    assert "0 of 3 clinicians have the 30 items the t-test needs" in body
    assert "Alt-test (ε = 0.15): no dimension could be tested; not enough evidence on" in body
    assert "Rank by ρ" in body and 'name="epsilon"' in body
