"""The human envelope's verdict (annotation/pure/envelope.py): one test per way the old verdict let a
researcher claim too much (issue 19), on data built here, plus the estimators against their
libraries and properties of every verdict."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.inter_rater import cohens_kappa

from annotation.pure import envelope as env
from annotation.pure.agreement import Rating, agreement

FAST = {"n_resamples": 2000}


def population(items, *, seed=0, jury="clinician", clinicians=6, per_item=3, noise=0.8):
    """Clinicians scoring around each item's latent quality; the jury as asked."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(3, 1, items)
    scored, panel = {}, {}

    def score(value):
        return int(np.clip(np.rint(value), 1, 5))

    for i in range(items):
        raters = rng.choice(clinicians, size=per_item, replace=False)
        scored[f"i{i}"] = {f"c{r}": score(truth[i] + rng.normal(0, noise)) for r in raters}
        panel[f"i{i}"] = {
            "clinician": lambda t=truth[i]: score(t + rng.normal(0, noise)),
            "constant": lambda t=truth[i]: 3,
            "noise_free": lambda t=truth[i]: score(t),
            "random": lambda t=truth[i]: int(rng.integers(1, 6)),
        }[jury]()
    return scored, panel


# --- 1. a jury that carries no information is never inside ---------------------------------------


@pytest.mark.parametrize("items", [60, 120, 300])
def test_a_jury_that_always_answers_3_is_below_never_inside(items):
    clinicians, jury = population(items, jury="constant", seed=items)
    result = env.envelope(clinicians, jury, **FAST)
    assert result.jury_kappa.value == pytest.approx(0)
    assert result.verdict == env.BELOW
    assert "kappa" in result.reason


# --- 2. outside has a direction ------------------------------------------------------------------


def test_a_noise_free_jury_is_above_and_a_random_one_below():
    clinicians, jury = population(400, jury="noise_free", seed=1)
    better = env.envelope(clinicians, jury, raters=env.FIXED, **FAST)
    assert better.verdict == env.ABOVE and better.kappa_difference.low > better.margin
    clinicians, jury = population(400, jury="random", seed=1)
    worse = env.envelope(clinicians, jury, raters=env.FIXED, **FAST)
    assert worse.verdict == env.BELOW and worse.kappa_difference.high < -worse.margin


# --- 3. no variation: no confident verdict, no zero-width interval -------------------------------


@pytest.mark.parametrize("items", [2, 3, 5])
def test_a_few_items_everyone_agrees_on_are_not_enough_evidence(items):
    clinicians = {f"i{i}": {"A": 4, "B": 4, "C": 4} for i in range(items)}
    result = env.envelope(clinicians, dict.fromkeys(clinicians, 4), **FAST)
    assert result.verdict == env.NOT_ENOUGH
    assert f"{items} items; 30 needed" in result.reason


def test_a_dimension_scored_4_by_everyone_is_not_enough_evidence_however_many_items():
    clinicians = {f"i{i}": {"A": 4, "B": 4} for i in range(80)}
    result = env.envelope(clinicians, dict.fromkeys(clinicians, 4), **FAST)
    assert result.verdict == env.NOT_ENOUGH and "do not vary" in result.reason


def test_agreement_at_1_gets_a_score_interval_not_1_to_1():
    clinicians, jury = population(40, seed=3, noise=0.0)  # clinicians agree exactly
    jury = {item: next(iter(scores.values())) for item, scores in clinicians.items()}
    result = env.envelope(clinicians, jury, **FAST)
    assert result.jury_adjacent.value == 1 and result.jury_adjacent.low < 1
    assert "Wilson" in result.jury_adjacent.method
    assert result.adjacent_difference.low < 0 < result.adjacent_difference.high
    assert "Newcombe" in result.adjacent_difference.method


# --- 4. the same kappa estimator on both sides ---------------------------------------------------


def library_kappa(x, y):
    table = np.zeros((5, 5))
    np.add.at(table, (np.array(x) - 1, np.array(y) - 1), 1)
    return cohens_kappa(table, wt="quadratic", return_results=False)


def test_both_kappas_are_item_weighted_means_of_pairwise_cohen_kappas_from_statsmodels():
    """Every pair's kappa is statsmodels' on its items; an item's weight is 1/k in the jury's
    kappa with each clinician and 2/(k(k−1)) in a pair of clinicians' (k its clinicians, so an
    item counts once over its pairs), and pairs are weighted by their items' weights. The
    difference sets the jury beside each pair on that pair's items."""
    clinicians, jury = population(50, seed=4, clinicians=4)
    for item in list(clinicians)[:20]:  # overlap that varies: some items get a fourth clinician
        clinicians[item] |= {c: 3 for c in ("c0", "c1", "c2", "c3") if c not in clinicians[item]}
    result = env.envelope(clinicians, jury, n_resamples=0)
    names = sorted({c for scores in clinicians.values() for c in scores})
    k = {i: len(s) for i, s in clinicians.items()}

    def weighted(x, y, weights):
        # A weighted table: statsmodels counts, so scale weights to whole counts (k ≤ 4: × 12).
        table = np.zeros((5, 5))
        np.add.at(table, (np.array(x) - 1, np.array(y) - 1), np.rint(np.array(weights) * 12))
        return cohens_kappa(table, wt="quadratic", return_results=False)

    pairs, weights, differences = [], [], []
    for a, b in combinations(names, 2):
        shared = [i for i, s in clinicians.items() if a in s and b in s]
        w = [2 / (k[i] * (k[i] - 1)) for i in shared]
        xa, xb, xj = ([clinicians[i][a] for i in shared], [clinicians[i][b] for i in shared],
                      [jury[i] for i in shared])  # fmt: skip
        pair = weighted(xa, xb, w)
        pairs.append(pair)
        weights.append(sum(w))
        differences.append((weighted(xj, xa, w) + weighted(xj, xb, w)) / 2 - pair)
    with_jury, jury_weights = [], []
    for c in names:
        own = [i for i in clinicians if c in clinicians[i]]
        w = [1 / k[i] for i in own]
        with_jury.append(weighted([jury[i] for i in own], [clinicians[i][c] for i in own], w))
        jury_weights.append(sum(w))
    assert result.clinician_kappa.value == pytest.approx(np.average(pairs, weights=weights))
    assert result.jury_kappa.value == pytest.approx(np.average(with_jury, weights=jury_weights))
    assert result.kappa_difference.value == pytest.approx(np.average(differences, weights=weights))


def test_clinicians_differing_in_leniency_are_not_handicapped_against_the_jury():
    """One lenient clinician (+1): pooling both orders of every pair (a Scott-type chance
    term) would put the clinicians' kappa below the mean of their Cohen kappas."""
    rng = np.random.default_rng(5)
    clinicians = {}
    for i in range(200):
        truth = rng.integers(1, 5)
        clinicians[f"i{i}"] = {"strict": int(truth), "lenient": int(min(5, truth + 1))}
    kappa = env.clinician_kappa(clinicians, n_resamples=0).value
    pooled = agreement(
        [Rating(i, c, "d", s) for i, by in clinicians.items() for c, s in by.items()],
        n_resamples=0,
    )["d"]
    x = [s["strict"] for s in clinicians.values()]
    y = [s["lenient"] for s in clinicians.values()]
    scott = library_kappa(x + y, y + x)  # both orders pooled
    assert kappa == pytest.approx(library_kappa(x, y)) and kappa > scott + 0.02
    assert pooled.clinicians.weighted_kappa.value == pytest.approx(kappa)


# --- 5. a panel's mean is not rounded before bias and MAE; the tie rule is a setting -------------


def test_a_panel_mean_equal_to_the_clinicians_mean_has_no_bias_and_no_error():
    ratings = []
    for i in range(10):
        ratings += [Rating(f"i{i}", "A", "d", 2), Rating(f"i{i}", "B", "d", 3)]
        ratings.append(Rating(f"i{i}", "panel", "d", 2.5, kind="jury"))  # two judges: 2 and 3
    mean = agreement(ratings, n_resamples=0)["d"].modes["clinician_mean"]
    assert (mean.bias.value, mean.mae.value) == (0, 0)


def test_the_tie_rule_moves_exact_agreement_and_half_credit_sits_between():
    ratings = []
    for i in range(10):
        ratings += [Rating(f"i{i}", "A", "d", 2), Rating(f"i{i}", "B", "d", 3)]
        ratings.append(Rating(f"i{i}", "panel", "d", 3, kind="jury"))
    exact = {
        rule: agreement(ratings, n_resamples=0, tie_rule=rule)["d"]
        .modes["clinician_mean"]
        .exact.value
        for rule in ("half_up", "half_down", "half_credit")
    }
    assert exact == {"half_up": 1, "half_down": 0, "half_credit": 0.5}
    with pytest.raises(ValueError, match="tie rule"):
        agreement(ratings, tie_rule="banker")


# --- 6. Monte-Carlo error, method and the margin ------------------------------------------------


def test_verdicts_use_10000_resamples_and_give_their_monte_carlo_error_and_method():
    clinicians, jury = population(60, seed=6)
    result = env.envelope(clinicians, jury)
    assert result.n_resamples == 10_000
    for figure in (result.adjacent_difference, result.kappa_difference, result.jury_kappa):
        assert 0 < figure.mc_error < 0.02
        assert "variance components (items × 6 clinicians)" in figure.method
        assert "10,000" in figure.method and "Satterthwaite" in figure.method
    fixed = env.envelope(clinicians, jury, raters=env.FIXED, **FAST)
    assert "these clinicians only" in fixed.kappa_difference.method


def test_an_endpoint_within_its_monte_carlo_error_of_the_margin_is_flagged():
    clinicians, jury = population(60, seed=6)
    first = env.envelope(clinicians, jury, raters=env.FIXED, **FAST)
    # Put the margin exactly on an endpoint the verdict turns on.
    on_it = env.envelope(
        clinicians, jury, raters=env.FIXED, margin=abs(first.kappa_difference.low), **FAST
    )
    assert on_it.at_the_margin
    far = env.envelope(clinicians, jury, raters=env.FIXED, margin=0.9, **FAST)
    assert not far.at_the_margin or far.jury_kappa.low < 0.05


# --- 7. small samples ----------------------------------------------------------------------------


def test_fewer_items_than_the_minimum_are_not_enough_evidence_and_say_so():
    clinicians, jury = population(29, seed=7, jury="noise_free")
    result = env.envelope(clinicians, jury, **FAST)
    assert (result.verdict, result.reason) == (env.NOT_ENOUGH, "29 items; 30 needed")
    assert result.adjacent_difference.ci is not None  # the figures are still shown
    assert env.envelope(clinicians, jury, min_items=20, **FAST).verdict != env.NOT_ENOUGH


# --- 8. mixed overlap: the same item weights on both sides ---------------------------------------


def test_a_jury_exchangeable_with_clinicians_shows_no_difference_when_overlap_varies():
    """Items with 2 clinicians are hard (scores 1 or 3, adjacent half the time); items with 5
    are easy (all 3). Weighting items by pairs (k on the jury's side, k(k-1)/2 on the
    clinicians') would give −0.10; the same weights on both sides give ≈ 0."""
    rng = np.random.default_rng(8)
    clinicians, jury = {}, {}
    for i in range(3000):
        if i % 2:
            clinicians[f"i{i}"] = {f"c{r}": int(rng.choice([1, 3])) for r in range(2)}
            jury[f"i{i}"] = int(rng.choice([1, 3]))
        else:
            clinicians[f"i{i}"] = {f"c{r}": 3 for r in range(5)}
            jury[f"i{i}"] = 3
    result = env.envelope(clinicians, jury, n_resamples=0)
    assert result.adjacent_difference.value == pytest.approx(0, abs=0.03)


# --- properties ----------------------------------------------------------------------------------

study = st.dictionaries(
    st.sampled_from([f"i{i}" for i in range(40)]),
    st.dictionaries(st.sampled_from("ABCD"), st.integers(1, 5), min_size=1, max_size=4),
    min_size=1,
    max_size=40,
)


@settings(max_examples=40, deadline=None)
@given(study, st.lists(st.sampled_from([1, 1.5, 2, 3, 3.5, 4, 5]), min_size=40, max_size=40))
def test_every_verdict_is_one_of_five_with_consistent_figures(clinicians, scores):
    jury = {f"i{i}": s for i, s in enumerate(scores)}
    result = env.envelope(clinicians, jury, n_resamples=300, min_items=5)
    assert result.verdict in env.VERDICTS and result.reason
    for figure in (result.jury_adjacent, result.clinician_adjacent):
        assert figure.value is None or 0 <= figure.value <= 1
    for figure in (result.jury_kappa, result.clinician_kappa):
        assert figure.value is None or figure.value <= 1 + 1e-9
    if result.jury_adjacent.value is not None:
        assert result.adjacent_difference.value == pytest.approx(
            result.jury_adjacent.value - result.clinician_adjacent.value
        )
    if result.verdict == env.INSIDE:
        assert result.jury_kappa.low > 0
        assert abs(result.kappa_difference.low) <= result.margin
    if result.n_items < env.MIN_INTERVAL_ITEMS:  # whatever min_items says
        assert result.verdict == env.NOT_ENOUGH
        for figure in figures_of(result):
            analytic = (figure.method or "").startswith(("Wilson", "Newcombe"))
            assert figure.ci is None or analytic


def test_the_verdict_repeats_with_its_seed():
    clinicians, jury = population(50, seed=9)
    first = env.envelope(clinicians, jury, seed=3, **FAST).as_dict()
    assert first == env.envelope(clinicians, jury, seed=3, **FAST).as_dict()


def test_a_near_perfect_jurys_agreement_with_the_mean_is_never_certain():
    """Every jury score within 1 of the clinicians' mean: the bootstrap gives [1, 1], which
    covered a near-perfect jury's true agreement a quarter of the time; Wilson does not."""
    clinicians, jury = population(40, seed=10, jury="noise_free", noise=0.3)
    ratings = [Rating(i, c, "d", s) for i, by in clinicians.items() for c, s in by.items()]
    ratings += [Rating(i, "panel", "d", s, kind="jury") for i, s in jury.items()]
    adjacent = agreement(ratings, n_resamples=500)["d"].modes["clinician_mean"].adjacent
    assert adjacent.value == 1
    assert adjacent.ci_low < 0.95 and adjacent.ci_high == 1 and "Wilson" in adjacent.method


def test_the_jury_page_says_when_another_tie_rule_would_change_a_panels_verdict():
    """A two-judge panel half a point above clinicians who agree: halves up put it a whole
    point above them (kappa falls), halves down on them."""
    from annotation.dashboards.jury import other_tie_rules

    rng = np.random.default_rng(11)
    ratings = []
    for i in range(60):
        truth = int(rng.integers(1, 5))
        ratings += [Rating(f"i{i}", c, "d", truth) for c in "ABC"]
        ratings.append(Rating(f"i{i}", "panel", "d", truth + 0.5, kind="jury"))
    result = {d: r.as_dict() for d, r in agreement(ratings, verdict_resamples=2000).items()}
    changed = other_tie_rules(ratings, result, ["d"])
    default = result["d"]["envelope"]["verdict"]
    assert changed["d"] and all(verdict != default for verdict in changed["d"].values())
    assert "half_down" in changed["d"]
    whole = [
        r if r.kind != "jury" else Rating(r.item, r.rater, "d", 3, kind="jury") for r in ratings
    ]
    result = {d: r.as_dict() for d, r in agreement(whole, verdict_resamples=500).items()}
    assert other_tie_rules(whole, result, ["d"]) == {}  # whole scores: no rule to change


def test_clinicians_are_a_sample_too_intervals_widen_for_them_unless_fixed():
    clinicians, jury = population(120, seed=12)
    sampled = env.envelope(clinicians, jury, **FAST)
    fixed = env.envelope(clinicians, jury, raters=env.FIXED, **FAST)
    for name in ("adjacent_difference", "kappa_difference", "clinician_kappa"):
        wide, narrow = getattr(sampled, name), getattr(fixed, name)
        assert wide.value == narrow.value
        assert wide.low <= narrow.low and wide.high >= narrow.high, name
        assert (wide.high - wide.low) > (narrow.high - narrow.low), name
    two = {i: dict(list(s.items())[:2]) for i, s in clinicians.items()}
    names = {c for s in two.values() for c in s}
    assert len(names) > 2  # the test's own check: trimming items keeps several clinicians
    few = {
        i: {("A" if n == 0 else "B"): v for n, v in enumerate(s.values())} for i, s in two.items()
    }
    alone = env.envelope(few, jury, **FAST)
    assert "too few to estimate how clinicians vary" in alone.kappa_difference.method


def figures_of(result):
    return (
        result.jury_adjacent,
        result.clinician_adjacent,
        result.adjacent_difference,
        result.jury_kappa,
        result.clinician_kappa,
        result.kappa_difference,
    )


def test_five_items_give_figures_without_intervals_and_no_verdict():
    """On 5 items a bootstrap interval covers far less often than it says
    (benchmarks/alpha_small_n.py), so the figures stand alone and no verdict is given, even
    when the caller asks for one from 2 items."""
    clinicians, jury = population(40, seed=4)
    few = dict(sorted(jury.items())[:5])
    result = env.envelope(clinicians, few, min_items=2, **FAST)
    assert result.n_items == 5 and result.verdict == env.NOT_ENOUGH
    assert result.reason == "5 items; 6 needed"
    kappa = result.jury_kappa
    assert kappa.value is not None and kappa.ci is None
    assert kappa.reason.startswith("not enough evidence for an interval: 5 items")
    six = env.envelope(clinicians, dict(sorted(jury.items())[:6]), min_items=2, **FAST)
    assert six.jury_kappa.ci is not None
