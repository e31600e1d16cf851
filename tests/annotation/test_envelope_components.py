"""The envelope's intervals over items and clinicians (issue 35, findings 1–4), each on data
built here: intervals from variance components with honest degrees of freedom, a reason that
names what would narrow them, kappa compared on matched items and pairs, and `at the margin`
only where the verdict turns."""

import numpy as np
import pytest

from annotation.pure import envelope as env


def whole(values):
    return np.clip(np.rint(values), 1, 5).astype(int)


def crossed_study(rng, items, pool, *, leniency=0.0, noise=0.8, per_item=(2, 5), jury_shift=0.0):
    """Items of quality ~ N(3, 1), each scored by 2–4 of a pool of clinicians of their own
    leniency; the jury scores like a clinician of leniency `jury_shift`."""
    quality = rng.normal(3, 1, items)
    lenient = rng.normal(0, leniency, pool)
    clinicians, jury = {}, {}
    for i in range(items):
        k = min(pool, int(rng.integers(*per_item)))
        raters = rng.choice(pool, size=k, replace=False)
        scores = whole(quality[i] + lenient[raters] + rng.normal(0, noise, k))
        clinicians[f"i{i}"] = {f"c{r}": int(s) for r, s in zip(raters, scores, strict=True)}
        jury[f"i{i}"] = int(whole(quality[i] + jury_shift + rng.normal(0, noise)))
    return clinicians, jury


# --- finding 1: the reason names what would narrow an interval; 3 clinicians get honest df -------


def test_three_clinicians_who_differ_are_told_more_clinicians_would_narrow_it_not_more_items():
    rng = np.random.default_rng(1)
    clinicians, jury = crossed_study(rng, 1000, 3, leniency=0.8, noise=0.5, per_item=(2, 4))
    result = env.envelope(clinicians, jury, n_resamples=1000)
    assert result.verdict in (env.INCONCLUSIVE, env.NOT_ENOUGH)
    assert "3 clinicians: more clinicians would narrow this; more items would not" in result.reason
    shares = result.as_dict()["kappa_difference"]["variance"]["shares"]
    assert shares["clinicians"] > 0.5


def test_few_items_with_clinicians_alike_are_told_more_items_would_narrow_it():
    rng = np.random.default_rng(0)
    clinicians, jury = crossed_study(rng, 60, 8, per_item=(4, 6))
    result = env.envelope(clinicians, jury, n_resamples=1000)
    assert result.verdict == env.INCONCLUSIVE
    assert "more items would narrow this; more clinicians would not" in result.reason


def test_clinicians_alike_do_not_widen_the_interval_much_beyond_these_clinicians_only():
    """Without a clinician effect the variance over clinicians is the items' own: the
    interaction counted once (the jackknife on top of the items' bootstrap counted it twice:
    ~1.4 times as wide)."""
    ratios = []
    for seed in range(6):
        clinicians, jury = crossed_study(np.random.default_rng(seed), 400, 5)
        sampled = env.envelope(clinicians, jury, n_resamples=1000)
        fixed = env.envelope(clinicians, jury, n_resamples=1000, raters=env.FIXED)
        for name in ("adjacent_difference", "kappa_difference"):
            wide, narrow = getattr(sampled, name), getattr(fixed, name)
            ratios.append((wide.high - wide.low) / (narrow.high - narrow.low))
    assert np.median(ratios) < 1.12


def test_three_clinicians_who_differ_get_t_intervals_on_their_few_degrees_of_freedom():
    """Three clinicians of very different leniency, 300 items: the clinician term dominates
    and has ~2 degrees of freedom, so the t quantile (4.3, not 1.96) keeps every verdict from
    being decisive, and the reason says that only more clinicians would help."""
    rng = np.random.default_rng(3)
    few = 0
    for _ in range(4):
        clinicians, jury = crossed_study(rng, 300, 3, leniency=0.7, noise=0.5, per_item=(2, 4))
        result = env.envelope(clinicians, jury, n_resamples=500)
        spread = result.jury_kappa.spread
        few += spread.df < 4 and spread.quantile(0.95) > 2.7
        assert result.verdict == env.INCONCLUSIVE
        assert "3 clinicians: more clinicians would narrow this" in result.reason
    assert few >= 2  # three clinicians who happen to be alike leave more df


# --- finding 2: sparse pairs do not bias the kappa difference --------------------------------------


def test_an_exchangeable_jury_shows_no_kappa_difference_when_pairs_share_few_items():
    """A pool of 10, 2–4 per item: a pair of clinicians shares ~20 of 300 items, and a kappa on
    20 items is biased low. Compared on the pair's own items, the jury's kappa carries the same
    bias; compared on each clinician's items (~90) it did not (+0.016 on average)."""
    rng = np.random.default_rng(4)
    differences = [
        env.envelope(*crossed_study(rng, 300, 10), n_resamples=0).kappa_difference.value
        for _ in range(60)
    ]
    assert abs(np.mean(differences)) < 0.01


# --- finding 3: overlap that tracks difficulty ---------------------------------------------------


def test_an_exchangeable_jury_is_not_above_when_harder_items_get_more_clinicians():
    """Hard items (noise 1.4) get 4 clinicians, easy ones (0.3) get 2: a pair of clinicians
    meets mostly hard items. Weighting each item once over its pairs, and the jury on the same
    pairs and items, gives the difference ≈ 0 (it was +0.07)."""
    rng = np.random.default_rng(5)
    differences, verdicts = [], []
    for _ in range(10):
        clinicians, jury = {}, {}
        for i in range(300):
            hard = i % 2 == 0
            noise, k = (1.4, 4) if hard else (0.3, 2)
            quality = rng.normal(3, 1)
            raters = rng.choice(6, k, replace=False)
            clinicians[f"i{i}"] = {
                f"c{r}": int(whole(quality + rng.normal(0, noise))) for r in raters
            }
            jury[f"i{i}"] = int(whole(quality + rng.normal(0, noise)))
        result = env.envelope(clinicians, jury, n_resamples=300, raters=env.FIXED)
        differences.append(result.kappa_difference.value)
        verdicts.append(result.verdict)
    assert abs(np.mean(differences)) < 0.02
    assert env.ABOVE not in verdicts


# --- finding 4: at the margin --------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_constant_jurys_exact_kappa_of_0_is_never_at_the_margin(seed):
    rng = np.random.default_rng(seed)
    clinicians, _ = crossed_study(rng, 120, 5)
    result = env.envelope(clinicians, dict.fromkeys(clinicians, 3), n_resamples=2000)
    assert result.jury_kappa.ci == pytest.approx([0, 0], abs=1e-9)
    assert result.verdict == env.BELOW and not result.at_the_margin


def test_only_an_endpoint_the_verdict_turns_on_is_at_the_margin():
    """A clear "above" on kappa: the adjacency difference's upper end lying on the margin
    cannot change it (moving it either way leaves that interval not below); its kappa lower
    end lying on the margin can."""
    rng = np.random.default_rng(6)
    clinicians, jury = crossed_study(rng, 400, 6, noise=0.9)
    jury = {i: int(whole(np.mean(list(s.values())))) for i, s in clinicians.items()}
    first = env.envelope(clinicians, jury, n_resamples=2000, raters=env.FIXED)
    adjacent, kappa = first.adjacent_difference, first.kappa_difference
    assert kappa.low > adjacent.high  # the test's own check: a margin can sit between them
    on_adjacent = env.envelope(
        clinicians, jury, n_resamples=2000, raters=env.FIXED, margin=adjacent.high
    )
    assert on_adjacent.verdict == env.ABOVE and not on_adjacent.at_the_margin
    on_kappa = env.envelope(clinicians, jury, n_resamples=2000, raters=env.FIXED, margin=kappa.low)
    assert on_kappa.at_the_margin
