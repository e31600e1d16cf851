"""Statistics of a study frame, held to scipy/statsmodels and to answers known by hand."""

import json
import math
import random

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from patientagentbench.analysis import statistics as s
from patientagentbench.analysis.metrics import TraceData
from patientagentbench.analysis.study import cell_record, cells_frame

CATEGORIES = ("retrieval", "scheduling", "computation", "composition", "ambiguous")
TOOLS = ("get_contact", "send_email", "search_emails", "calculate", "create_event")

# Student's (1908) sleep data, as in R's `sleep`: extra hours of sleep under two drugs for
# the same ten patients. R: t.test(drug2, drug1, paired = TRUE) gives t = 4.0621, df = 9,
# p = 0.002833, mean difference 1.58, 95% CI [0.7001142, 2.4598858].
SLEEP_DRUG_1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
SLEEP_DRUG_2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]

finite = st.floats(-1e3, 1e3, allow_nan=False)


def rows_frame(rows, **defaults):
    """A frame from hand-made cells; unspecified identity keys get harmless defaults."""
    base = {"model": "m", "task_id": "t", "category": "retrieval", "difficulty": "easy"}
    return cells_frame([base | defaults | {"task_id": f"t{i}"} | row for i, row in enumerate(rows)])


def study_frame(seed=0, models=6, tasks=19, runs=10):
    """The paper's shape (6 models x 19 tasks x 10 runs) from simulated traces: noisier
    models vary their tools more; ambiguous tasks vary their arguments more."""
    rng = random.Random(seed)

    def run(noise, ambiguous):
        calls = [
            (
                TOOLS[step] if rng.random() > noise else rng.choice(TOOLS),
                {"to": "alice" if rng.random() > (0.5 if ambiguous else 0.1) else "bob"},
            )
            for step in range(rng.randint(2, 3))
        ]
        return TraceData(
            calls=calls,
            final_response=rng.choice(["Done.", "Sent.", "Done."]),
            error="timeout" if rng.random() < 0.02 else None,
            correct=rng.random() > 2 * noise,
        )

    cells = []
    for m in range(models):
        noise = 0.02 + 0.06 * m
        for t in range(tasks):
            category = CATEGORIES[t % len(CATEGORIES)]
            cells.append(
                cell_record(
                    model=f"model-{m}",
                    task_id=f"task-{t:02d}",
                    category=category,
                    difficulty=("easy", "medium", "hard")[t % 3],
                    temperature=1.0,
                    attributes={"severity": ("mild", "severe")[t % 2]},
                    traces=[run(noise, category == "ambiguous") for _ in range(runs)],
                )
            )
    return cells_frame(cells)


@pytest.fixture(scope="module")
def study_data():
    return study_frame()


# -- intervals -----------------------------------------------------------------------------


def test_mean_ci_is_the_t_interval():
    result = s.mean_ci([1, 2, 3, 4, 5])
    low, high = stats.t.interval(0.95, 4, loc=3, scale=stats.sem([1, 2, 3, 4, 5]))
    assert result["mean"] == 3 and result["n"] == 5
    assert result["sd"] == pytest.approx(math.sqrt(2.5))
    assert (result["ci_low"], result["ci_high"]) == (pytest.approx(low), pytest.approx(high))
    assert result["ci_low"] == pytest.approx(1.0367568, abs=1e-6)  # 3 - 2.776445 * sd / sqrt 5


def test_mean_ci_ignores_missing_values_and_handles_tiny_samples():
    assert s.mean_ci([None, float("nan"), 2.0])["mean"] == 2.0
    assert s.mean_ci([2.0])["ci_low"] is None
    assert s.mean_ci([])["mean"] is None
    constant = s.mean_ci([0.5, 0.5, 0.5])
    assert constant["ci_low"] == constant["ci_high"] == 0.5


@given(st.lists(finite, min_size=2, max_size=30))
def test_mean_ci_contains_the_mean(values):
    result = s.mean_ci(values)
    assert result["ci_low"] <= result["mean"] <= result["ci_high"]


def test_bootstrap_ci_contains_the_mean_and_repeats_with_its_seed():
    values = np.random.default_rng(1).normal(0.8, 0.1, size=40)
    first = s.bootstrap_ci(values, seed=3)
    assert first["ci_low"] < values.mean() < first["ci_high"]
    assert first == s.bootstrap_ci(values, seed=3)
    assert first != s.bootstrap_ci(values, seed=4)
    direct = stats.bootstrap(
        (values,), np.mean, n_resamples=2000, rng=np.random.default_rng(3)
    ).confidence_interval
    assert (first["ci_low"], first["ci_high"]) == (direct.low, direct.high)


def test_bootstrap_ci_of_constant_or_tiny_data():
    assert s.bootstrap_ci([0.9] * 5)["ci_low"] == 0.9
    assert s.bootstrap_ci([0.9])["ci_low"] is None
    assert s.bootstrap_ci([], stat=np.median)["estimate"] is None
    median = s.bootstrap_ci([1, 2, 3, 4, 100], stat=np.median, n=500)
    assert median["estimate"] == 3


# -- comparisons ---------------------------------------------------------------------------


def test_paired_comparison_reproduces_students_sleep_data():
    result = s.paired_comparison(SLEEP_DRUG_2, SLEEP_DRUG_1)
    assert result["t"] == pytest.approx(4.0621, abs=1e-4)
    assert result["df"] == 9
    assert result["p"] == pytest.approx(0.002833, abs=1e-6)
    assert result["difference"]["mean"] == pytest.approx(1.58)
    assert result["difference"]["ci_low"] == pytest.approx(0.7001142, abs=1e-6)
    assert result["difference"]["ci_high"] == pytest.approx(2.4598858, abs=1e-6)
    differences = np.subtract(SLEEP_DRUG_2, SLEEP_DRUG_1)
    assert result["cohens_d"] == pytest.approx(differences.mean() / differences.std(ddof=1))
    assert result["cohens_d"] == pytest.approx(4.0621 / math.sqrt(10), abs=1e-4)  # d_z = t/√n


def test_the_ci_of_d_puts_the_observed_t_at_the_tails_of_the_noncentral_t():
    result = s.paired_comparison(SLEEP_DRUG_2, SLEEP_DRUG_1)
    n, t = 10, result["t"]
    assert stats.nct.cdf(t, n - 1, result["d_ci_low"] * math.sqrt(n)) == pytest.approx(0.975)
    assert stats.nct.cdf(t, n - 1, result["d_ci_high"] * math.sqrt(n)) == pytest.approx(0.025)
    assert result["d_ci_low"] < result["cohens_d"] < result["d_ci_high"]


def test_paired_tss_vs_ac_pairs_within_cells():
    frame = rows_frame(
        [{"tss": a, "ac": b} for a, b in zip(SLEEP_DRUG_2, SLEEP_DRUG_1, strict=True)]
        + [{"tss": 0.9, "ac": None}]  # unpaired: left out
    )
    result = s.paired_tss_vs_ac(frame)
    assert result["n"] == 10
    assert result["t"] == pytest.approx(4.0621, abs=1e-4)
    assert result["tss"]["n"] == 11


def test_paired_comparison_of_too_few_or_constant_differences():
    assert "error" in s.paired_comparison([1.0], [0.5])
    constant = s.paired_comparison([1, 2, 3], [0, 1, 2])
    assert constant["cohens_d"] is None and constant["difference"]["mean"] == 1


def test_independent_comparison_matches_scipy_and_the_pooled_d():
    a, b = [2, 4, 6, 5], [1, 2, 3, 1.5]
    result = s.independent_comparison(a, b)
    student = stats.ttest_ind(a, b)
    welch = stats.ttest_ind(a, b, equal_var=False)
    assert result["t"] == pytest.approx(student.statistic)
    assert result["p"] == pytest.approx(student.pvalue)
    assert result["welch_p"] == pytest.approx(welch.pvalue)
    pooled = math.sqrt((3 * np.var(a, ddof=1) + 3 * np.var(b, ddof=1)) / 6)
    assert result["cohens_d"] == pytest.approx((np.mean(a) - np.mean(b)) / pooled)
    assert result["d_ci_low"] < result["cohens_d"] < result["d_ci_high"]


def test_ambiguous_against_every_other_category():
    rows = [{"category": "ambiguous", "ac": v, "tss": v + 0.2} for v in (0.4, 0.5, 0.6)]
    structured = (("retrieval", 0.7), ("scheduling", 0.8), ("computation", 0.9))
    rows += [{"category": c, "ac": v, "tss": 0.9} for c, v in structured]
    rows += [{"category": None, "ac": 0.0, "tss": 0.0}]  # no category: in neither group
    result = s.ambiguous_vs_structured(rows_frame(rows))
    expected = stats.ttest_ind([0.4, 0.5, 0.6], [0.7, 0.8, 0.9])
    assert result["ac"]["first"]["mean"] == pytest.approx(0.5)
    assert result["ac"]["second"]["mean"] == pytest.approx(0.8)
    assert result["ac"]["p"] == pytest.approx(expected.pvalue)
    assert result["ac"]["cohens_d"] == pytest.approx(-3.0)  # -0.3 / pooled sd 0.1
    assert result["ac"]["relative_difference"] == pytest.approx(-0.375)
    assert result["tss"]["welch_p"] is not None


def test_ambiguous_comparison_without_ambiguous_cells_says_why():
    assert "error" in s.ambiguous_vs_structured(rows_frame([{"ac": 0.5}, {"ac": 0.6}]))


# -- divergence, output, correctness -------------------------------------------------------


def test_divergence_histogram_counts_pairs_per_step():
    frame = rows_frame(
        [
            {"divergence_steps": [1, 1, 2], "divergence_point": 4 / 3},
            {"divergence_steps": [4], "divergence_point": 4.0},
            {"divergence_steps": []},
        ]
    )
    result = s.divergence_histogram(frame)
    assert [(c["step"], c["pairs"]) for c in result["counts"]] == [(1, 2), (2, 1), (3, 0), (4, 1)]
    assert result["share_steps_1_2"] == 0.75
    assert result["mean_pair_step"] == 2.0
    assert result["mean_cell_divergence_point"] == pytest.approx((4 / 3 + 4) / 2)


def test_divergence_histogram_without_divergence():
    result = s.divergence_histogram(rows_frame([{"divergence_steps": []}]))
    assert result["counts"] == [] and result["share_steps_1_2"] is None


def test_output_exact_match_summary():
    frame = rows_frame(
        [
            {"model": "a", "output_exact_match": 0.0},
            {"model": "a", "output_exact_match": 0.1},
            {"model": "b", "output_exact_match": 0.0},
            {"model": "b", "output_exact_match": None},
        ]
    )
    result = s.output_exact_match_summary(frame)
    assert result["per_model"] == {"a": pytest.approx(0.05), "b": 0.0}
    assert result["max_model_mean"] == pytest.approx(0.05)
    assert result["overall"]["n"] == 3
    assert result["share_of_cells_with_any_match"] == pytest.approx(1 / 3)


def test_exactly_linear_correctness_correlates_perfectly():
    tss = np.linspace(0.5, 1.0, 12)
    frame = rows_frame([{"tss": x, "ac": 1 - x, "correct_rate": 0.5 * x + 0.2} for x in tss])
    result = s.correctness_vs_tss(frame)
    assert result["tss"]["pearson_r"] == pytest.approx(1.0)
    assert result["tss"]["spearman_rho"] == pytest.approx(1.0)
    assert result["ac"]["pearson_r"] == pytest.approx(-1.0)


def test_median_split_at_090_and_tertiles():
    tss = [0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0, 1.0, 1.0]
    correct = [0.5, 0.6, 0.4, 0.7, 0.9, 1.0, 0.8, 1.0, 0.9]
    frame = rows_frame(
        [{"tss": x, "correct_rate": y, "n_graded": 10} for x, y in zip(tss, correct, strict=True)]
    )
    result = s.correctness_vs_tss(frame)
    split = result["median_split"]
    assert (split["n_high"], split["n_low"]) == (5, 4)  # TSS >= 0.90 is high
    expected = stats.ttest_ind(correct[4:], correct[:4])
    assert split["test"]["p"] == pytest.approx(expected.pvalue)
    assert split["test"]["first"]["mean"] == pytest.approx(0.92)
    assert split["high_traces_correct_rate"] == pytest.approx(0.92)
    tertiles = result["tertiles"]["tertiles"]
    assert [t["n"] for t in tertiles] == [3, 3, 3]
    assert [t["correct_rate"]["mean"] for t in tertiles] == pytest.approx([0.5, 2.6 / 3, 0.9])
    assert tertiles[0]["tss_max"] <= tertiles[1]["tss_min"]


def test_correctness_without_graded_cells_says_why():
    assert "error" in s.correctness_vs_tss(rows_frame([{"tss": 0.9}]))
    constant = s.correctness_vs_tss(rows_frame([{"tss": 0.9, "correct_rate": 1.0}] * 4))
    assert "error" in constant["tss"]


# -- ANOVA, reliability, Bonferroni --------------------------------------------------------


def test_anova_known_f_and_eta_squared():
    # Group means 2, 5, 8 around 5: SS_between = 3 * (9 + 0 + 9) = 54, SS_within = 6,
    # F = (54 / 2) / (6 / 6) = 27, eta^2 = 54 / 60.
    groups = {"a": [1, 2, 3], "b": [4, 5, 6], "c": [7, 8, 9]}
    rows = [{"model": m, "tss": v} for m, values in groups.items() for v in values]
    result = s.anova(rows_frame(rows), "tss")
    assert result["F"] == pytest.approx(27.0)
    assert result["eta_squared"] == pytest.approx(0.9)
    assert result["p"] == pytest.approx(stats.f.sf(27, 2, 6))
    assert (result["df_between"], result["df_within"]) == (2, 6)
    assert result["group_means"] == {"a": 2.0, "b": 5.0, "c": 8.0}


def test_anova_of_degenerate_groups():
    assert "error" in s.anova(rows_frame([{"tss": 0.1}, {"tss": 0.2}]), "tss")
    one_cell_each = rows_frame([{"model": "a", "tss": 1}, {"model": "b", "tss": 2}])
    assert "error" in s.anova(one_cell_each, "tss")
    constant = s.anova(rows_frame([{"model": m, "tss": 0.5} for m in "aabb"]), "tss")
    assert constant["eta_squared"] is None and constant["F"] is None
    values = zip("aabb", [0, 0, 1, 1], strict=True)
    separated = s.anova(rows_frame([{"model": m, "tss": v} for m, v in values]), "tss")
    assert separated["eta_squared"] == 1.0 and separated["F"] is None


@given(
    st.lists(
        st.tuples(st.sampled_from("abcd"), st.floats(0, 1, allow_nan=False)),
        min_size=3,
        max_size=30,
    )
)
def test_eta_squared_lies_between_zero_and_one(rows):
    result = s.anova(rows_frame([{"model": m, "tss": v} for m, v in rows]), "tss")
    if "error" not in result and result["eta_squared"] is not None:
        assert -1e-12 <= result["eta_squared"] <= 1 + 1e-12


def test_split_half_reliability_is_spearman_brown_corrected():
    odd, even = [1, 2, 3, 4, 5], [2, 1, 4, 3, 5]  # Pearson r = 0.8
    frame = rows_frame([{"tss_odd": a, "tss_even": b} for a, b in zip(odd, even, strict=True)])
    result = s.split_half_reliability(frame, "tss")
    assert result["r"] == pytest.approx(0.8)
    assert result["spearman_brown"] == pytest.approx(1.6 / 1.8)
    assert result["n"] == 5
    assert "error" in s.split_half_reliability(frame.iloc[:2], "tss")


def test_bonferroni_on_known_p_values():
    result = s.bonferroni({"a": 0.01, "b": 0.04, "c": 0.5, "d": None})
    assert result["m"] == 3
    assert result["tests"]["a"] == {
        "p": 0.01,
        "p_adjusted": pytest.approx(0.03),
        "significant": True,
    }
    assert result["tests"]["b"]["p_adjusted"] == pytest.approx(0.12)
    assert result["tests"]["b"]["significant"] is False
    assert result["tests"]["c"]["p_adjusted"] == 1.0
    assert result["tests"]["d"] == {"p": None, "p_adjusted": None, "significant": None}


@given(st.dictionaries(st.text(max_size=3), st.floats(0, 1), max_size=8))
def test_bonferroni_adjusted_p_lies_between_raw_p_and_one(pvalues):
    for name, test in s.bonferroni(pvalues)["tests"].items():
        assert pvalues[name] <= test["p_adjusted"] <= 1


# -- mixed model ---------------------------------------------------------------------------


def mixed_frame(seed=0, tasks=20):
    """TSS = task intercept (sd 0.1) + model effect + noise (sd 0.03)."""
    rng = np.random.default_rng(seed)
    effects = {"a": 0.0, "b": 0.10, "c": -0.05, "d": 0.20}
    rows = []
    for task in range(tasks):
        intercept = 0.6 + rng.normal(0, 0.1)
        for model, effect in effects.items():
            value = intercept + effect + rng.normal(0, 0.03)
            rows.append({"model": model, "task_id": f"t{task}", "tss": value})
    return cells_frame(rows), effects


def test_mixed_model_recovers_the_model_effects_net_of_task():
    frame, effects = mixed_frame()
    result = s.mixed_model(frame, "tss")
    assert result["converged"] is True
    assert result["reference_model"] == "a"
    coefficients = {row["label"]: row for row in result["coefficients"]}
    for model in ("b", "c", "d"):
        assert coefficients[model]["coef"] == pytest.approx(effects[model], abs=0.03)
        assert coefficients[model]["p"] < 0.001
    assert result["group_variance"] == pytest.approx(0.01, rel=0.7)
    assert result["residual_variance"] == pytest.approx(0.0009, rel=0.5)
    assert result["model_effect"]["p"] < 1e-6 and result["model_effect"]["df"] == 3
    json.dumps(s.jsonable(result), allow_nan=False)


@pytest.mark.parametrize(
    "rows",
    [
        [],
        [{"model": "a", "task_id": "t1", "tss": 0.5}, {"model": "b", "task_id": "t1", "tss": 0.6}],
        [{"model": "a", "task_id": f"t{i}", "tss": 0.1 * i} for i in range(6)],
        [{"model": m, "task_id": f"t{i}", "tss": 0.5} for m in "ab" for i in range(5)],
        [{"model": m, "task_id": f"{m}{i}", "tss": 0.1 * i} for m in "ab" for i in range(5)],
    ],
    ids=["empty", "too-few", "one-model", "constant", "tasks-not-shared"],
)
def test_mixed_model_on_degenerate_data_returns_an_error(rows):
    result = s.mixed_model(cells_frame(rows), "tss")
    assert set(result) == {"error"} and isinstance(result["error"], str)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.sampled_from("ab"), st.sampled_from("xyz"), st.sampled_from([0, 0.5, 1])),
        max_size=12,
    )
)
def test_mixed_model_never_raises(rows):
    frame = cells_frame([{"model": m, "task_id": t, "tss": v} for m, t, v in rows])
    result = s.mixed_model(frame, "tss")
    json.dumps(s.jsonable(result), allow_nan=False)


# -- temperatures --------------------------------------------------------------------------


def test_one_temperature_is_not_applicable():
    frame = rows_frame([{"tss": 0.5}, {"tss": 0.7}], temperature=1.0)
    result = s.temperature_comparison(frame, "tss")
    assert result["applicable"] is False and result["reason"]


def test_temperatures_are_compared_on_matching_cells():
    rows = []
    for i, (cold, warm) in enumerate(zip(SLEEP_DRUG_1, SLEEP_DRUG_2, strict=True)):
        rows.append({"model": "m", "task_id": f"t{i}", "temperature": 0.0, "tss": cold})
        rows.append({"model": "m", "task_id": f"t{i}", "temperature": 1.0, "tss": warm})
    rows.append({"model": "m", "task_id": "extra", "temperature": 1.0, "tss": 9.0})  # unpaired
    result = s.temperature_comparison(cells_frame(rows), "tss")
    assert result["temperatures"] == [0.0, 1.0]
    paired = result["paired"]["1.0 vs 0.0"]
    assert paired["n"] == 10 and paired["t"] == pytest.approx(4.0621, abs=1e-4)
    assert [t["n"] for t in result["per_temperature"]] == [10, 11]
    assert result["friedman"] is None


def test_three_temperatures_add_friedman_and_bonferroni():
    rng = np.random.default_rng(2)
    rows = [
        {"model": m, "task_id": f"t{i}", "temperature": temp, "ac": rng.random() + temp}
        for m in "ab"
        for i in range(6)
        for temp in (0.0, 0.7, 1.0)
    ]
    result = s.temperature_comparison(cells_frame(rows), "ac")
    assert len(result["paired"]) == 3
    assert result["friedman"]["n"] == 12
    wide = pd.DataFrame(rows).pivot_table(
        index=["model", "task_id"], columns="temperature", values="ac"
    )
    expected = stats.friedmanchisquare(*(wide[t] for t in (0.0, 0.7, 1.0)))
    assert result["friedman"]["p"] == pytest.approx(expected.pvalue)
    for test in result["paired"].values():
        assert test["p_bonferroni"] == pytest.approx(min(1.0, 3 * test["p"]))


# -- tables and the report -----------------------------------------------------------------


def test_model_table_is_the_papers_table_one(study_data):
    table = s.model_table(study_data)
    assert table["tss_mean"].is_monotonic_decreasing
    first = table.iloc[0]
    cells = study_data[study_data["model"] == first["model"]]
    assert first["n_cells"] == 19
    assert first["tss_mean"] == pytest.approx(cells["tss"].mean())
    assert first["tss_sd"] == pytest.approx(cells["tss"].std())
    assert first["ac_ci_low"] == pytest.approx(s.percentile_bootstrap_mean(cells["ac"])[0])
    assert first["ac_ci_low"] <= first["ac_mean"] <= first["ac_ci_high"]
    assert first["unique_sequences_mean"] == pytest.approx(cells["unique_sequences"].mean())
    assert first["output_exact_match_mean"] == pytest.approx(cells["output_exact_match"].mean())
    assert first["tss_boot_ci_low"] <= first["tss_mean"] <= first["tss_boot_ci_high"]
    correct = (cells["correct_rate"] * cells["n_graded"]).sum()
    assert first["correct_traces"] == pytest.approx(correct)
    assert first["correct_wilson_low"] < first["correct_traces_rate"] < first["correct_wilson_high"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=8))
def test_table_intervals_of_bounded_metrics_stay_in_range(values):
    low, high = s.percentile_bootstrap_mean(values)
    if len(values) < 2:
        assert (low, high) == (None, None)
    else:
        assert min(values) - 1e-12 <= low <= sum(values) / len(values) + 1e-9
        assert sum(values) / len(values) - 1e-9 <= high <= max(values) + 1e-12


def test_category_difficulty_task_and_attribute_tables(study_data):
    assert set(s.category_table(study_data)["category"]) == set(CATEGORIES)
    assert s.difficulty_table(study_data)["difficulty"].tolist() == ["easy", "medium", "hard"]
    tasks = s.task_table(study_data)
    assert len(tasks) == 19 and (tasks["n_cells"] == 6).all()
    assert {"task_id", "category", "difficulty"} <= set(tasks.columns)
    severity = s.attribute_table(study_data, "severity")
    assert severity["n_cells"].sum() == len(study_data)
    with pytest.raises(KeyError):
        s.attribute_table(study_data, "no-such-attribute")


def test_full_report_is_json_serialisable_and_complete(study_data):
    report = s.full_report(study_data)
    text = json.dumps(report, allow_nan=False)
    assert json.loads(text) == report
    assert report["n_cells"] == 114
    assert report["tables"]["model"][0]["n_cells"] == 19
    assert report["mixed_model"]["tss"]["n_groups"] == 19
    assert report["temperature"]["tss"]["applicable"] is False
    assert set(report["breakdowns"]) == {"category", "difficulty", "severity"}
    assert report["bonferroni"]["m"] >= 5
    headline = {row["figure"]: row["value"] for row in report["headline"]}
    assert headline["mean_tss"] == pytest.approx(study_data["tss"].mean())
    assert headline["anova_tss_F"] == pytest.approx(report["anova"]["tss"]["F"])
    # Noisier models were built to be less consistent and less correct.
    assert report["anova"]["tss"]["p"] < 0.001
    assert report["correctness_vs_tss"]["tss"]["pearson_r"] > 0


def test_full_report_sets_the_papers_values_beside_ours(study_data):
    published = {"mean_tss": {"value": 0.87, "note": "95% CI [0.84, 0.90]"}}
    report = s.full_report(study_data, include_mixed_model=False, published_headline=published)
    row = next(row for row in report["headline"] if row["figure"] == "mean_tss")
    assert row["published"] == 0.87 and row["published_note"] == "95% CI [0.84, 0.90]"
    assert "skipped" in report["mixed_model"]


@pytest.mark.parametrize(
    "rows",
    [
        [],
        [{"model": "a", "task_id": "t"}],
        [{"model": "a", "task_id": "t", "tss": 1.0, "ac": 1.0, "n_valid": 2, "n_error": 0}],
        [
            {
                "model": m,
                "task_id": f"t{i}",
                "tss": 1.0,
                "ac": 1.0,
                "correct_rate": 1.0,
                "n_valid": 3,
                "n_error": 0,
            }
            for m in "ab"
            for i in range(3)
        ],
    ],
    ids=["empty", "no-metrics", "one-cell", "all-perfect"],
)
def test_full_report_of_degenerate_studies_is_still_json(rows):
    report = s.full_report(cells_frame(rows))
    json.dumps(report, allow_nan=False)


def test_report_tables_are_csv_ready(study_data):
    tables = s.report_tables(study_data)
    assert {"cells", "model", "category", "difficulty", "task", "attribute_severity"} <= set(tables)
    assert "divergence_steps" not in tables["cells"]
    assert len(tables["model_category"]) == 6 * 5
    assert "model_temperature" not in tables  # one temperature
    assert tables["model"].to_csv(index=False).startswith("model,n_cells")


def test_jsonable_turns_nan_and_numpy_into_plain_values():
    value = {"a": np.float64("nan"), "b": [np.int64(2), np.inf], "c": np.bool_(True), 1: (1.5,)}
    assert s.jsonable(value) == {"a": None, "b": [2, None], "c": True, "1": [1.5]}
