"""The jury-corrected estimators (annotation.pure.corrected) and the random sampler that feeds them
(annotation.pure.sampling.random_share), on plain data: agreement with ppi_py's figures, closed
forms, coverage and bias by simulation, Hájek weights under a stratified design, refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from annotation.pure import corrected
from annotation.pure.corrected import CLINICIANS_ONLY, JURY_ONLY, PPI, Member, three_estimates
from annotation.pure.sampling import PER_MODEL, UNIFORM, Candidate, random_share

# Hand data: 12 clinician-scored conversations (clinician mean, jury mean) and 20 the
# clinicians did not score.
Y = [3, 4, 2, 5, 3, 3, 4, 1, 2, 4, 5, 3]
F = [3.5, 4, 2.5, 4.5, 3, 2.5, 4, 2, 2, 3.5, 4.5, 3.5]
FU = [3, 4.5, 2, 1.5, 3.5, 4, 4, 5, 2.5, 3, 3.5, 4, 2, 3, 4.5, 1, 3.5, 4, 2.5, 3]
# ppi_py 0.2.3 on the same arrays: ppi_mean_pointestimate(Y, F, FU) and
# ppi_mean_ci(Y, F, FU, alpha=0.05), power-tuned, and again with lam=1 (classic PPI). The
# package itself is not a dependency (it pulls numba and scikit-learn); these are its figures.
PPI_PY_TUNED = (3.195101082457816, (2.7107798196799373, 3.6794223452356944))
PPI_PY_LAM1 = (3.1583333333333337, (2.6325931468901533, 3.684073519776514))


def hand_members() -> list[Member]:
    share = len(Y) / (len(Y) + len(FU))
    return [Member(f, y, share, True) for f, y in zip(F, Y, strict=True)] + [
        Member(f, None, share) for f in FU
    ]


def simulated(rng, n_population, n, bias=0.0, noise=0.5, spread=1.0):
    """A population of clinician judgements y and jury scores f = y + bias + noise, and a
    uniform random sample of n of them scored by clinicians. Truth: the mean of y is 3."""
    y = 3 + spread * rng.standard_normal(n_population)
    f = y + bias + noise * rng.standard_normal(n_population)
    labelled = set(rng.choice(n_population, n, replace=False).tolist())
    share = n / n_population
    return [
        Member(f[i], y[i] if i in labelled else None, share, i in labelled)
        for i in range(n_population)
    ]


# --- against ppi_py and closed forms ---------------------------------------------------------


Z = 1.959963984540054  # ppi_py's normal quantile at 95%


def normal_ci(estimate):
    return (estimate.value - Z * estimate.se, estimate.value + Z * estimate.se)


def test_the_power_tuned_estimate_matches_ppi_py():
    members = hand_members()
    found = three_estimates(members)[PPI]
    assert found.value == pytest.approx(PPI_PY_TUNED[0], abs=1e-12)  # the same point
    assert found.n == 12 and found.n_population == 32
    assert 0 < found.lam < 1
    # Without the small-sample pseudo-misses the standard error is ppi_py's too; with them
    # it is wider, never narrower.
    plain = corrected.prediction_powered(members, corrected._weights(members), None, pseudo=False)
    assert plain.value == found.value and plain.lam == found.lam
    assert normal_ci(plain) == pytest.approx(PPI_PY_TUNED[1], abs=1e-12)
    assert found.se > plain.se and "pseudo-misses" in found.interval


def test_classic_ppi_matches_ppi_py_and_the_closed_form():
    members = hand_members()
    weights = corrected._weights(members)
    found = corrected.prediction_powered(members, weights, None, lam=1.0, pseudo=False)
    y, f, fu = np.array(Y), np.array(F), np.array(FU)
    point = fu.mean() + (y - f).mean()
    se = math.sqrt(fu.var() / len(fu) + (y - f).var() / len(y))
    assert found.value == pytest.approx(point) == pytest.approx(PPI_PY_LAM1[0])
    assert found.se == pytest.approx(se)
    assert normal_ci(found) == pytest.approx(PPI_PY_LAM1[1], abs=1e-12)
    # the interval itself takes the t quantile at n − 1 df, a little wider at n = 12
    half = stats.t.ppf(0.975, len(Y) - 1) * se
    assert found.ci == pytest.approx((point - half, point + half))
    assert "t interval (11 df)" in found.interval


def test_clinicians_only_is_the_t_interval_and_jury_only_the_normal_one():
    found = three_estimates(hand_members())
    low, high = stats.t.interval(0.95, len(Y) - 1, loc=np.mean(Y), scale=stats.sem(Y))
    assert found[CLINICIANS_ONLY].value == pytest.approx(np.mean(Y))
    assert found[CLINICIANS_ONLY].ci == pytest.approx((low, high))
    everything = F + FU
    low, high = stats.norm.interval(0.95, np.mean(everything), stats.sem(everything))
    assert found[JURY_ONLY].ci == pytest.approx((low, high))
    assert "not corrected" in found[JURY_ONLY].interval


def test_a_clinicians_only_pass_rate_takes_wilsons_interval():
    """9 passes of 12: Wilson's 95% interval is [0.4677, 0.9111] (the textbook figure)."""
    members = [Member(1.0, 1.0 if i < 9 else 0.0, 0.5, True) for i in range(12)]
    found = three_estimates(members + [Member(1.0, None, 0.5)] * 12, proportion=True)
    assert found[CLINICIANS_ONLY].value == 0.75
    assert found[CLINICIANS_ONLY].ci == pytest.approx((0.4677, 0.9111), abs=1e-4)
    assert "Wilson" in found[CLINICIANS_ONLY].interval


def test_effective_labels_are_the_variance_ratio():
    found = three_estimates(hand_members())
    ppi = found[PPI]
    classical = np.var(Y) / len(Y)  # on the PPI's footing: n-divisor
    assert ppi.effective_n == pytest.approx(len(Y) * classical / ppi.se**2)
    assert ppi.effective_n <= ppi.n_population
    assert ppi.effective_n > len(Y)  # this jury tracks the clinicians: worth more labels


def test_an_uninformative_jury_is_tuned_away():
    rng = np.random.default_rng(3)
    members = simulated(rng, 400, 60, noise=0.0)
    noise = rng.permutation([m.jury for m in members])  # the jury's scores, shuffled
    members = [
        Member(j, m.clinician, m.inclusion, m.sampled) for j, m in zip(noise, members, strict=True)
    ]
    ppi = three_estimates(members)[PPI]
    assert ppi.lam < 0.3
    assert ppi.effective_n == pytest.approx(60, rel=0.25)


# --- by simulation ---------------------------------------------------------------------------


def test_ppi_intervals_cover_and_are_narrower_when_the_jury_is_informative():
    rng = np.random.default_rng(11)
    covered, ppi_width, clinician_width, reps = 0, [], [], 300
    for _ in range(reps):
        found = three_estimates(simulated(rng, 500, 40, bias=0.5, noise=0.5))
        low, high = found[PPI].ci
        covered += low <= 3 <= high
        ppi_width.append(high - low)
        clinician_width.append(found[CLINICIANS_ONLY].ci[1] - found[CLINICIANS_ONLY].ci[0])
    assert 0.91 <= covered / reps <= 0.985  # 95% nominal; ± 3 Monte-Carlo SEs
    assert np.mean(ppi_width) < 0.75 * np.mean(clinician_width)


def test_a_biased_jury_is_corrected_on_average():
    rng = np.random.default_rng(5)
    estimates = [three_estimates(simulated(rng, 300, 30, bias=0.8)) for _ in range(300)]
    ppi = np.array([e[PPI].value for e in estimates])
    jury = np.array([e[JURY_ONLY].value for e in estimates])
    assert abs(ppi.mean() - 3) < 3 * ppi.std() / math.sqrt(len(ppi))
    assert jury.mean() == pytest.approx(3.8, abs=0.05)  # the jury's own scale: biased by 0.8


def test_unequal_inclusion_probabilities_are_weighted_back():
    """Two strata, the better one sampled five times as often: the unweighted correction would
    drift toward it; the Hájek-weighted one stays on the truth and its intervals cover."""
    rng = np.random.default_rng(8)
    values, covered, reps = [], 0, 200
    for _ in range(reps):
        members = []
        for stratum, mean, size, n in (("low", 2.0, 300, 10), ("high", 4.0, 300, 50)):
            y = mean + 0.7 * rng.standard_normal(size)
            f = y + (0.6 if stratum == "low" else -0.2) + 0.5 * rng.standard_normal(size)
            labelled = set(rng.choice(size, n, replace=False).tolist())
            members += [
                Member(f[i], y[i] if i in labelled else None, n / size, i in labelled, stratum)
                for i in range(size)
            ]
        found = three_estimates(members)[PPI]
        values.append(found.value)
        covered += found.ci[0] <= 3 <= found.ci[1]
        assert "Hájek" in found.interval
    assert abs(np.mean(values) - 3) < 3 * np.std(values) / math.sqrt(reps)
    assert covered / reps >= 0.9


def test_an_unfinished_sample_scales_inclusion_by_the_scored_share():
    """Half the sampled items not scored yet: they count as unscored, and the estimate equals
    the one where only the scored half had been sampled."""
    rng = np.random.default_rng(2)
    members = simulated(rng, 200, 40)
    scored = [i for i, m in enumerate(members) if m.sampled][:20]
    partial = [
        Member(m.jury, m.clinician if i in scored else None, m.inclusion, m.sampled)
        for i, m in enumerate(members)
    ]
    smaller = [
        Member(m.jury, m.clinician if i in scored else None, 20 / 200, i in scored)
        for i, m in enumerate(members)
    ]
    assert three_estimates(partial)[PPI].ci == pytest.approx(three_estimates(smaller)[PPI].ci)


def test_pass_rates_stay_within_zero_and_one():
    """A model that nearly always passes: a normal interval would run past 1."""
    rng = np.random.default_rng(4)
    members = [
        Member(
            corrected.passes(m.jury, 1.2),
            None if m.clinician is None else corrected.passes(m.clinician, 1.2),
            m.inclusion,
            m.sampled,
        )
        for m in simulated(rng, 300, 60)
    ]
    found = three_estimates(members, proportion=True)
    assert all(e.value is not None for e in found.values())
    for estimate in found.values():
        assert 0 <= estimate.ci[0] <= estimate.value <= estimate.ci[1] <= 1


# --- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize("design", ["extremes_first", "explicit", "round", "", "hand-picked"])
def test_a_sample_not_drawn_at_random_is_refused_with_the_reason(design):
    reason = corrected.design_refusal(design, inclusion_recorded=True)
    assert reason.startswith("Refused") and "not at random" in reason


def test_a_random_design_without_inclusion_probabilities_is_refused():
    assert "no inclusion probabilities" in corrected.design_refusal(UNIFORM, False)
    assert corrected.design_refusal(UNIFORM, True) == ""
    assert corrected.design_refusal(PER_MODEL, True) == ""


def test_fewer_than_the_minimum_scored_items_is_not_enough_evidence():
    members = hand_members()
    found = three_estimates(members, min_labelled=13)
    assert found[PPI].value is None and found[CLINICIANS_ONLY].value is None
    assert "not enough evidence" in found[PPI].reason and "12" in found[PPI].reason
    assert found[JURY_ONLY].value is not None  # the jury's own mean is still shown
    assert three_estimates(members, min_labelled=12)[PPI].value is not None


def test_scores_that_do_not_vary_give_no_interval():
    members = [Member(3.0, 3.0, 0.5, True) for _ in range(12)] + [Member(3.0, None, 0.5)] * 12
    found = three_estimates(members)
    assert found[PPI].value is None and "do not vary" in found[PPI].reason
    assert found[CLINICIANS_ONLY].value is None


def test_a_stratum_without_clinician_scores_refuses_the_correction():
    members = hand_members() + [Member(4.0, None, 0.2, True, "other") for _ in range(5)]
    found = three_estimates(members)
    assert found[PPI].value is None and "no clinician scores yet" in found[PPI].reason


def test_members_for_uses_the_clinicians_mean_and_the_pass_mark():
    population = [("1", 2.5, 0.5, ""), ("2", 4.0, 0.5, ""), ("3", 3.0, 0.5, "")]
    means = {"1": corrected.mean_of_clinicians([2, 4]), "2": corrected.mean_of_clinicians([2])}
    found = corrected.members_for(population, {"1", "2"}, means, corrected.passes)
    assert [(m.jury, m.clinician, m.sampled) for m in found] == [
        (0.0, 1.0, True),  # the clinicians' mean 3 passes; the jury's 2.5 does not
        (1.0, 0.0, True),
        (1.0, None, False),
    ]


# --- the random sampler ------------------------------------------------------------------------


def candidates(sizes: dict[str, int]) -> list[Candidate]:
    return [
        Candidate(key=f"{model}-{i}", model=model)
        for model, size in sizes.items()
        for i in range(size)
    ]


def test_a_uniform_share_records_n_over_big_n_for_every_candidate():
    pool = candidates({"a": 30, "b": 10})
    sample = random_share(pool, 8, seed=1)
    assert sample.design == UNIFORM and len(sample.keys) == 8
    assert set(sample.inclusion) == {c.key for c in pool}
    assert set(sample.inclusion.values()) == {8 / 40}
    assert sample.keys == random_share(list(reversed(pool)), 8, seed=1).keys
    assert sample.preview()["total"] == 8


def test_the_same_number_per_model_records_each_models_probability():
    sample = random_share(candidates({"a": 30, "b": 10, "c": 2}), 12, seed=3, per_model=True)
    chosen = [sample.models[k] for k in sample.keys]
    assert (chosen.count("a"), chosen.count("b"), chosen.count("c")) == (5, 5, 2)
    assert sample.inclusion["a-0"] == 5 / 30 and sample.inclusion["c-1"] == 1.0
    assert sample.stratum_of("b-3") == "b"


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.dictionaries(st.sampled_from("abcde"), st.integers(1, 40), min_size=1),
    n=st.integers(0, 120),
    per_model=st.booleans(),
    seed=st.integers(0, 10**6),
)
def test_inclusion_probabilities_add_up_to_the_sample_size(sizes, n, per_model, seed):
    sample = random_share(candidates(sizes), n, seed, per_model=per_model)
    assert len(sample.keys) == len(set(sample.keys)) == min(n, sum(sizes.values()))
    assert sum(sample.inclusion.values()) == pytest.approx(len(sample.keys))
    assert all(0 <= p <= 1 for p in sample.inclusion.values())


# --- issue 35, finding 6: small samples, balance, stratified parity ---------------------------


def rarely_lenient(rng, n_population, n, proportion=False):
    """Clinician scores on 1–5; the jury agrees exactly but on one conversation in ten scores
    two points higher (for pass rates: lenient on about one in 40). Truth: the mean of the
    score distribution (3.25) or its pass rate (0.75)."""
    y = rng.choice([1, 2, 3, 4, 5], n_population, p=[0.1, 0.15, 0.3, 0.3, 0.15]).astype(float)
    f = np.where(rng.random(n_population) < 0.1, np.minimum(y + 2, 5), y)
    if proportion:
        y, f = (y >= 3).astype(float), (f >= 3).astype(float)
    labelled = set(rng.choice(n_population, n, replace=False).tolist())
    share = n / n_population
    return [
        Member(f[i], y[i] if i in labelled else None, share, i in labelled)
        for i in range(n_population)
    ]


@pytest.mark.parametrize(("proportion", "truth"), [(False, 3.25), (True, 0.75)])
def test_a_rarely_lenient_jury_is_covered_at_the_minimum_of_labels(proportion, truth):
    """The plain PPI++ interval covered 0.77 (means) and 0.78 (pass rates) here: a sample of
    10 often holds no disagreement, and the correction then claims certainty."""
    rng = np.random.default_rng(35)
    reps, covered = 300, 0
    for _ in range(reps):
        members = rarely_lenient(rng, 300, corrected.MIN_LABELLED, proportion)
        low, high = three_estimates(members, proportion=proportion)[PPI].ci
        covered += low <= truth <= high
    assert covered / reps >= 0.92  # 95% nominal; 0.92 is 2.4 Monte-Carlo SEs below it


def test_pass_rates_with_a_jury_biased_one_way_are_covered_at_30_labels():
    """A jury a point kind passes many of the clinicians' failures and fails almost none of
    their passes: a t interval on the one-sided correction covered 0.885 at 30 labels."""
    rng = np.random.default_rng(36)
    reps, covered = 400, 0
    for _ in range(reps):
        y = rng.choice([1, 2, 3, 4, 5], 400, p=[0.1, 0.15, 0.3, 0.3, 0.15]).astype(float)
        f = np.clip(y + 1 + 0.7 * rng.standard_normal(400), 1, 5)
        labelled = set(rng.choice(400, 30, replace=False).tolist())
        members = [
            Member(corrected.passes(f[i]), corrected.passes(y[i]) if i in labelled else None,
                   30 / 400, i in labelled)
            for i in range(400)
        ]  # fmt: skip
        low, high = three_estimates(members, proportion=True)[PPI].ci
        covered += low <= 0.75 <= high
    assert covered / reps >= 0.925


def all_agreeing_sample():
    """The issue's case: 1,000 conversations, 702 passing by the clinicians, the jury passing
    those and 82 more; 30 labelled, all on conversations where the two agree."""
    jury = [1.0] * 784 + [0.0] * 216
    clinicians = [1.0] * 702 + [0.0] * 298
    labelled = set(range(0, 690, 30)) | set(range(790, 1000, 30))  # 23 passes, 7 fails
    assert len(labelled) == 30
    return [
        Member(j, c if i in labelled else None, 30 / 1000, i in labelled)
        for i, (j, c) in enumerate(zip(jury, clinicians, strict=True))
    ]


def test_a_small_sample_with_no_disagreement_does_not_collapse_the_interval():
    ppi = three_estimates(all_agreeing_sample(), proportion=True)[PPI]
    low, high = ppi.ci  # was 0.784 [0.757, 0.811], worth 1,201 labels
    assert low <= 0.702 <= high
    assert high - low > 0.1
    assert ppi.effective_n <= 1000


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(corrected.MIN_LABELLED, 60),
    size=st.integers(61, 400),
    seed=st.integers(0, 10**6),
    proportion=st.booleans(),
)
def test_effective_labels_never_exceed_the_population(n, size, seed, proportion):
    rng = np.random.default_rng(seed)
    y = rng.integers(1, 6, size).astype(float)
    f = y.copy()  # a jury that never disagrees: the variance ratio alone would be unbounded
    f[: size // 3] = rng.integers(1, 6, size // 3)
    if proportion:
        y, f = (y >= 3) * 1.0, (f >= 3) * 1.0
    labelled = set(rng.choice(size, n, replace=False).tolist())
    members = [Member(f[i], y[i] if i in labelled else None, n / size, i in labelled)
               for i in range(size)]  # fmt: skip
    ppi = three_estimates(members, proportion=proportion)[PPI]
    assert ppi.effective_n is None or ppi.effective_n <= size


def lowest_recorded_as_uniform(rng, n=40, size=1000):
    y = rng.choice([1, 2, 3, 4, 5], size, p=[0.1, 0.15, 0.3, 0.3, 0.15]).astype(float)
    f = np.clip(y + 0.5 * rng.standard_normal(size), 1, 5)
    lowest = set(np.argsort(f)[:n].tolist())
    return [Member(f[i], y[i] if i in lowest else None, n / size, i in lowest)
            for i in range(size)]  # fmt: skip


def test_the_jurys_lowest_recorded_as_uniform_are_refused_with_the_reason():
    members = lowest_recorded_as_uniform(np.random.default_rng(40))
    for proportion in (False, True):
        found = three_estimates(
            [
                Member(corrected.passes(m.jury), None if m.clinician is None
                       else corrected.passes(m.clinician), m.inclusion, m.sampled)
                for m in members
            ] if proportion else members,
            proportion=proportion,
        )  # fmt: skip
        for method in (PPI, CLINICIANS_ONLY):
            assert found[method].value is None and found[method].ci is None
            reason = found[method].reason
            assert reason.startswith("Refused") and "does not look random" in reason
            assert "40 clinician-scored conversations" in reason and "p < 0.0001" in reason
            assert found[method].balance == reason
        assert found[JURY_ONLY].value is not None  # the jury's own mean is still shown


def test_a_random_sample_is_rarely_flagged_and_not_refused():
    rng = np.random.default_rng(41)
    flagged = 0
    for _ in range(300):
        found = three_estimates(simulated(rng, 400, 30))
        assert found[PPI].value is not None
        flagged += bool(found[PPI].balance)
    assert flagged / 300 < 0.03  # about 1% by design (|z| ≥ 2.58)


def test_a_sample_that_looks_unbalanced_is_shown_with_a_warning():
    rng = np.random.default_rng(42)
    y = 3 + rng.standard_normal(600)
    f = y + 0.3 * rng.standard_normal(600)
    order = np.argsort(f)
    # 30 drawn from the upper two thirds: their jury mean sits about 3 SEs high
    chosen = set(rng.choice(order[200:], 30, replace=False).tolist())
    members = [Member(f[i], y[i] if i in chosen else None, 30 / 600, i in chosen)
               for i in range(600)]  # fmt: skip
    check = corrected.balance(members, corrected._weights(members))
    assert corrected.FLAG_Z <= abs(check.z) < corrected.REFUSE_Z
    ppi = three_estimates(members)[PPI]
    assert ppi.value is not None and ppi.balance.startswith("Check the sample")


# A stratified hand sample: the jury's failures (its score < 3) sampled at 1/2, the rest at 1/6.
STRAT_Y = [1, 2, 2, 3, 1, 2, 4, 5, 3, 4, 4, 5]
STRAT_F = [1.5, 2, 2.5, 2.5, 2, 1.5, 4, 4.5, 3.5, 4, 5, 4.5]
STRAT_FU = [2, 1.5, 2.5, 1, 2, 2.5] + [3, 4, 4.5, 5, 3.5, 4, 3, 4.5, 5, 4, 3.5, 4, 3, 4.5, 4]
STRAT_FU += [3.5, 5, 4, 3, 4.5, 4, 3.5, 4, 5, 3, 4, 4.5, 3.5, 4, 5]
# ppi_py 0.2.3, ppi_mean_pointestimate / ppi_mean_ci(alpha=0.05) with w = 1/π and
# w_unlabeled = 1/(1 − π): at fixed λ, and with its own power tuning.
PPI_PY_STRATIFIED = {0.5: 3.479166666666666, 0.8: 3.416666666666665, 1.0: 3.374999999999999}
PPI_PY_STRATIFIED_TUNED = 3.449068984802901  # its λ ≈ 0.644


def stratified_members():
    def stratum(i):
        return ("fail", 0.5) if i < 6 else ("pass", 1 / 6)

    scored = [Member(f, y, stratum(i)[1], True, stratum(i)[0])
              for i, (f, y) in enumerate(zip(STRAT_F, STRAT_Y, strict=True))]  # fmt: skip
    return scored + [Member(f, None, stratum(i)[1], False, stratum(i)[0])
                     for i, f in enumerate(STRAT_FU)]  # fmt: skip


def test_a_stratified_point_is_ppi_pys_at_the_same_lambda_and_lambda_is_ours():
    """What the docstring says differs from ppi_py's weighted estimator, pinned: the point
    at any λ is the same; our λ minimises the linearised Hájek variance and is not ppi_py's
    (0.669 against 0.644 here, points 0.005 apart). Before, λ came from ppi_py's pooled
    form carried to weights (0.52) and was not the minimiser of the variance reported."""
    members = stratified_members()
    weights = corrected._weights(members)
    for lam, point in PPI_PY_STRATIFIED.items():
        found = corrected.prediction_powered(members, weights, None, lam=lam, pseudo=False)
        assert found.value == pytest.approx(point, abs=1e-12)
    ours = three_estimates(members)[PPI]
    assert ours.lam == pytest.approx(0.6685, abs=1e-4)
    assert ours.value - PPI_PY_STRATIFIED_TUNED == pytest.approx(-0.0050, abs=1e-4)

    # and λ is the minimiser of the variance reported
    def variance(lam):
        return corrected.prediction_powered(members, weights, None, lam=lam, pseudo=False).se

    assert variance(ours.lam) <= min(variance(ours.lam - 0.02), variance(ours.lam + 0.02))
