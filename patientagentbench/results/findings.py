"""The analysis as a results section reads: each statistic a row with its label, estimate,
interval, n and, where a test could not be computed, the reason in words.

Works on the plain statistics dict (`statistics.full_report`, as cached by `run_analysis`) and
returns plain data for the report template. A section that does not apply to the study (no
ambiguous tasks, one temperature, no correctness verdicts) is left out rather than shown
empty; the paper's published value stays beside each headline figure when the suite is the
paper's, and the figure beside it carries its n and CI, or says "not enough evidence".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from patientagentbench.analysis.headline import (
    MIN_CELLS_FOR_A_MEAN,
    MIN_PAIRS_FOR_AN_EFFECT_SIZE,
    Headline,
    Interval,
    Minimum,
    headline,
    interval_withheld,
)

Row = dict[str, Any]


# -- formatting ----------------------------------------------------------------------------


def number(value: Any, digits: int = 2) -> str:
    """A number for prose: integers without decimals, None as an em dash."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer() and digits == 0):
        return f"{int(value):,}"
    return f"{value:.{digits}f}"


def percent(value: Any, digits: int = 1) -> str:
    return "—" if not _is_number(value) else f"{100 * value:.{digits}f}%"


def p_value(value: Any) -> str:
    if not _is_number(value):
        return "—"
    return "p < 0.001" if value < 0.001 else f"p = {value:.3f}"


# An analytic interval (Wilson's) holds at any n; only a zero width withholds it.
ANY_N = Minimum(0, "")


def interval(low: Any, high: Any, fmt=number, method: str = "", *, n: Any, minimum: Minimum) -> str:
    """ "95% CI low to high (method)", or "not enough evidence" when the interval has zero width
    or stands on fewer than `minimum` observations (`headline.interval_withheld`)."""
    if not (_is_number(low) and _is_number(high)):
        return ""
    withheld = interval_withheld(low, high, n if _is_number(n) else 0, minimum)
    if withheld:
        return withheld
    text = f"95% CI {fmt(low)} to {fmt(high)}"
    return f"{text} ({method})" if method else text


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _get(data: Any, *path: str) -> Any:
    for key in path:
        data = data.get(key) if isinstance(data, Mapping) else None
    return data


def _row(label: str, estimate: str = "—", ci: str = "", n: Any = None, detail: str = "") -> Row:
    shown = n if isinstance(n, str) else number(n, 0)  # "17 + 16" stays as written
    return {"label": label, "estimate": estimate, "ci": ci, "n": shown, "detail": detail}


def _bootstrap_row(label: str, boot: Mapping[str, Any], fmt=number, detail: str = "") -> Row:
    """A mean over cells with its bootstrap interval."""
    return _row(
        label,
        fmt(boot["estimate"]),
        interval(
            boot.get("ci_low"),
            boot.get("ci_high"),
            fmt,
            "bootstrap",
            n=boot.get("n"),
            minimum=MIN_CELLS_FOR_A_MEAN,
        ),
        boot.get("n"),
        detail,
    )


def _versus_row(
    label: str, first: Any, second: Any, counts: tuple[Any, Any], detail: str, fmt=number
) -> Row:
    """Two groups side by side: "first vs second", n as "n1 + n2"."""
    return _row(
        label, f"{fmt(first)} vs {fmt(second)}", n=f"{counts[0]} + {counts[1]}", detail=detail
    )


def _unavailable(label: str, result: Any, n: Any = None) -> Row | None:
    """A row that says why a test has no result; None when the result is fine."""
    if isinstance(result, Mapping) and "error" in result:
        return _row(label, n=n, detail=f"Not computed: {result['error']}.") | {"missing": True}
    if result is None:
        return _row(label, n=n, detail="Not computed for this study.") | {"missing": True}
    return None


# -- sections ------------------------------------------------------------------------------


def report_sections(stats: Mapping[str, Any], *, has_published: bool) -> list[dict[str, Any]]:
    """Titled sections of rows, in the order a results section reads."""
    sections = [
        ("Consistency", _consistency(stats)),
        ("Where runs first diverge", _divergence(stats)),
        ("Final responses", _output(stats)),
        ("Correctness and consistency", _correctness(stats)),
        ("Ambiguous vs structured tasks", _ambiguous(stats)),
        ("Differences between models", _models(stats)),
        ("Reliability", _reliability(stats)),
        ("Temperature", _temperature(stats)),
        ("Multiple testing", _bonferroni(stats)),
    ]
    return [{"title": title, "rows": rows} for title, rows in sections if rows]


def headline_rows(stats: Mapping[str, Any], *, has_published: bool) -> list[Row]:
    """The paper's headline figures as rows, each printed by `analysis.headline`: the value
    with its n and CI beside it, or "not enough evidence" below the figure's minimum, where
    the paper's value then stands alone. Rows about something the study lacks (ambiguous
    tasks, correctness) are left out unless the paper published them for this suite."""
    rows = []
    for figure in stats.get("headline", []):
        if not has_published and figure.get("value") is None:
            continue
        published = figure.get("published") if has_published else None
        shown = printed_headline(figure, published)
        row = {
            "figure": figure["figure"],
            "label": figure.get("label", figure["figure"]),
            "estimate": shown.value,
            "beside": shown.beside,
            "enough": shown.enough,
            "shown": shown.shown,
            "published": _published(published, figure.get("unit", "")),
            "published_note": figure.get("published_note", ""),
            "comparison": shown.comparison if _is_number(published) else "",
            "detail": "" if shown.enough else figure.get("minimum_why", ""),
        }
        variant = figure.get("variant")
        if _variant_stands(variant, shown):
            row["variant"] = f"{printed_headline(variant).text} {variant['label']}"
        rows.append(row)
    return rows


def _variant_stands(variant: Any, figure: Headline) -> bool:
    """The project's variant is printed when its own sample reaches its minimum and, when it
    counts runs nested in cells rather than cells, when the figure's cells reach theirs."""
    if not isinstance(variant, Mapping) or not _is_number(variant.get("value")):
        return False
    if not printed_headline(variant).enough:
        return False
    return figure.enough or not variant.get("of")


# A figure cached before minimums were stated gets the strictest one rather than none.
_FALLBACK_MINIMUM = MIN_PAIRS_FOR_AN_EFFECT_SIZE


def printed_headline(figure: Mapping[str, Any], published: Any = None) -> Headline:
    """One headline figure of `statistics.headline_figures` (or its variant) as printed."""
    percent_unit = figure.get("unit") == "%"
    ci = figure.get("ci")
    minimum = (
        Minimum(figure["minimum"], figure.get("minimum_why", ""))
        if "minimum" in figure
        else _FALLBACK_MINIMUM
    )
    return headline(
        figure.get("value"),
        Interval(ci["low"], ci["high"], ci["method"], ci.get("level", 0.95)) if ci else None,
        figure.get("n"),
        minimum,
        fmt=(lambda value: f"{value:.1f}%") if percent_unit else (lambda value: number(value, 3)),
        published=published if _is_number(published) else None,
        published_fmt=lambda value: _published(value, figure.get("unit", "")),
        no_interval=figure.get("no_interval", ""),
        missing=figure.get("reason", ""),
        of=figure.get("of", ""),
    )


def _published(value: Any, unit: str) -> str:
    if not _is_number(value):
        return ""
    return f"{value:g}%" if unit == "%" else f"{value:g}"


def dropped_rows(stats: Mapping[str, Any]) -> list[Row]:
    return [
        _row(
            f"{cell['model']} · {cell['task_id']}",
            n=cell.get("n_runs"),
            detail=f"{cell['reason']}; left out of every figure, as the paper leaves it out.",
        )
        for cell in stats.get("dropped_cells", [])
    ]


def _consistency(stats: Mapping[str, Any]) -> list[Row]:
    rows = []
    labels = {
        "tss": "tool-sequence similarity (TSS)",
        "ac": "argument consistency (AC)",
        "ac_aligned": "AC over aligned steps (this project's addition)",
    }
    for metric, label in labels.items():
        boot = _get(stats, "overall", metric, "bootstrap") or {}
        if boot.get("estimate") is None:
            continue
        rows.append(_bootstrap_row(f"Mean {label} over cells", boot))
    paired = stats.get("tss_vs_ac")
    missing = _unavailable("TSS exceeds AC within cells", paired)
    if missing:
        return [*rows, missing]
    difference = paired["difference"]
    rows.append(
        _row(
            "TSS exceeds AC within cells by",
            number(difference.get("mean")),
            interval(
                difference.get("ci_low"),
                difference.get("ci_high"),
                method="t",
                n=paired.get("n"),
                minimum=MIN_CELLS_FOR_A_MEAN,
            ),
            paired.get("n"),
            _t_detail(paired, "d for paired cells"),
        )
    )
    return rows


def _t_detail(test: Mapping[str, Any], d_name: str = "d") -> str:
    if test.get("t") is None:
        return test.get("reason", "")
    effect = f"Cohen's {d_name} = {number(test.get('cohens_d'))}"
    # A two-group test states its df, not its n: df + 2 cells stand behind it.
    n = test.get("n", (test.get("df") or 0) + 2)
    bounds = interval(
        test.get("d_ci_low"),
        test.get("d_ci_high"),
        method="noncentral t",
        n=n,
        minimum=MIN_PAIRS_FOR_AN_EFFECT_SIZE,
    )
    if bounds:
        effect += f" ({bounds})"
    return (
        f"t({number(test.get('df'), 0)}) = {number(test['t'])}, {p_value(test.get('p'))}; {effect}"
    )


# Said when no cell has two valid runs: there is no pair of runs to diverge, and "no pair
# diverged" would read as a finding (a run with one repetition showed it).
ONE_REPETITION = "Only one repetition per cell: divergence needs at least two."
TOO_FEW_VALID = "No cell has two valid runs: divergence needs at least two."


def _divergence(stats: Mapping[str, Any]) -> list[Row]:
    paper = _get(stats, "paper", "divergence") or {}
    pairs = stats.get("divergence") or {}
    if not stats.get("n_cells"):
        dropped = stats.get("dropped_cells") or []
        one_each = all((cell.get("n_runs") or 0) <= 1 for cell in dropped)
        return [_row("First divergence", detail=ONE_REPETITION if one_each else TOO_FEW_VALID)]
    if paper.get("share_steps_1_2") is None and not pairs.get("n_pairs"):
        return [_row("First divergence", detail="No pair of runs diverged in any cell.")]
    rows = []
    if paper.get("share_steps_1_2") is not None:
        rows.append(
            _row(
                "Cells whose mean divergence point is in steps 1-2 (the paper's measure)",
                percent(paper["share_steps_1_2"]),
                n=paper["n_cells_with_divergence"],
                detail=f"Mean of the cells' divergence points {number(paper['mean_of_cell_divergence_points'])}, "
                f"median {number(paper['median_of_cell_divergence_points'])}.",
            )
        )
    if pairs.get("n_pairs"):
        rows.append(
            _row(
                "Diverging run pairs that diverge in steps 1-2 (over pairs)",
                percent(pairs["share_steps_1_2"]),
                n=pairs["n_pairs"],
                detail=f"Mean first diverging step over pairs {number(pairs.get('mean_pair_step'))}.",
            )
        )
    return rows


def _output(stats: Mapping[str, Any]) -> list[Row]:
    output = stats.get("output_exact_match") or {}
    overall = output.get("overall") or {}
    if overall.get("mean") is None:
        return []
    per_model = output.get("per_model") or {}
    detail = "Per model: " + ", ".join(f"{m} {percent(v)}" for m, v in per_model.items())
    return [
        _row(
            "Run pairs whose final responses match exactly (mean over cells)",
            percent(overall["mean"]),
            n=overall.get("n"),
            detail=detail,
        )
    ]


def _correctness(stats: Mapping[str, Any]) -> list[Row]:
    paper = stats.get("paper") or {}
    correctness = paper.get("correctness") or {}
    if "error" in correctness or not correctness:
        return []
    n = correctness.get("n_conditions")
    rows = [
        _row(
            "Correctness: mean of the cells' correct rates (the paper's)",
            percent(correctness["overall_correctness"]),
            n=n,
        )
    ]
    strict = _get(stats, "overall", "correct_rate_all_checks", "bootstrap") or {}
    rules = _get(stats, "settings", "pass_rules") or {}
    if strict.get("estimate") is not None and "paper" in rules:
        rows.append(
            _bootstrap_row(
                "Correctness under the strict rule (every check passes, output pattern too)",
                strict,
                percent,
                "The paper's code passes a run on its tool checks and half its argument "
                "checks; its text says every criterion.",
            )
        )
    pooled = _get(stats, "overall", "correct_traces") or {}
    if pooled.get("rate") is not None:
        rows.append(
            _row(
                "Correct traces, pooled over graded traces",
                percent(pooled["rate"]),
                interval(
                    pooled.get("wilson_low"),
                    pooled.get("wilson_high"),
                    percent,
                    "Wilson",
                    n=pooled.get("graded"),
                    minimum=ANY_N,
                ),
                pooled.get("graded"),
            )
        )
    for key, name, stat in (
        ("tss_pearson", "TSS vs correct rate: Pearson r", "r"),
        ("tss_spearman", "TSS vs correct rate: Spearman rho", "rho"),
        ("ac_pearson", "AC vs correct rate: Pearson r", "r"),
        ("ac_spearman", "AC vs correct rate: Spearman rho", "rho"),
    ):
        test = correctness.get(key)
        if not test or not _is_number(test.get(stat)):
            rows.append(_row(name, n=n, detail="Not computed: a variable is constant or n < 3."))
            continue
        rows.append(_row(name, number(test[stat]), n=n, detail=p_value(test.get("p"))))
    split = paper.get("median_split") or {}
    missing = _unavailable("Median split by TSS", split or None, n)
    if missing:
        rows.append(missing)
    else:
        rows.append(
            _versus_row(
                f"Correctness at or above the median TSS ({number(split['tss_median'])}) vs below",
                split["high_tss_correctness"],
                split["low_tss_correctness"],
                (split["n_high"], split["n_low"]),
                f"t = {number(split.get('t'))}, {p_value(split.get('p'))}; "
                f"Cohen's d = {number(split.get('cohens_d'))} (the paper's formula)",
                percent,
            )
        )
    return rows


def _ambiguous(stats: Mapping[str, Any]) -> list[Row]:
    comparison = stats.get("ambiguous_vs_structured") or {}
    if "error" in comparison or not comparison:
        return []  # no ambiguous tasks: the comparison does not apply
    rows = []
    for metric, label in (("ac", "AC"), ("tss", "TSS")):
        test = comparison.get(metric) or {}
        missing = _unavailable(f"{label}: ambiguous vs structured", test if test else None)
        if missing:
            rows.append(missing)
            continue
        first, second = test["first"], test["second"]
        rows.append(
            _versus_row(
                f"{label}: ambiguous vs structured tasks",
                first["mean"],
                second["mean"],
                (first["n"], second["n"]),
                _t_detail(test),
            )
        )
    return rows


def _models(stats: Mapping[str, Any]) -> list[Row]:
    if len(stats.get("models", [])) < 2:
        return []
    rows = []
    for metric, label in (("tss", "TSS"), ("ac", "AC")):
        test = _get(stats, "anova", metric)
        missing = _unavailable(f"{label} differs by model (one-way ANOVA)", test)
        if missing:
            rows.append(missing)
            continue
        rows.append(
            _row(
                f"{label} differs by model (one-way ANOVA): eta²",
                number(test.get("eta_squared")),
                n=test.get("n"),
                detail=(
                    f"F({test['df_between']}, {test['df_within']}) = {number(test.get('F'))}, "
                    f"{p_value(test.get('p'))}"
                    if test.get("F") is not None
                    else test.get("reason", "")
                ),
            )
        )
        mixed = _get(stats, "mixed_model", metric)
        if isinstance(mixed, Mapping) and "error" not in mixed and "model_effect" in mixed:
            effect = mixed["model_effect"]
            rows.append(
                _row(
                    f"{label} by model, net of task (mixed model, this project's addition): ICC",
                    number(mixed.get("icc")),
                    n=mixed.get("n_obs"),
                    detail=f"likelihood ratio {number(effect['lr_statistic'])} on "
                    f"{effect['df']} df, {p_value(effect['p'])}",
                )
            )
    return rows


def _reliability(stats: Mapping[str, Any]) -> list[Row]:
    rows = []
    paper = _get(stats, "paper", "split_half") or {}
    if "error" in paper:
        rows.append(
            _row(
                "Split-half TSS, even vs odd runs (the paper's split-half script)",
                detail=f"Not computed: {paper['error']}.",
            )
        )
    elif paper:
        rows.append(
            _row(
                "Split-half TSS, even vs odd runs (the paper's split-half script): Pearson r",
                number(paper["tss_pearson_r"]),
                n=paper["n_cells"],
                detail=f"{p_value(paper['p'])}; Spearman rho {number(paper['tss_spearman_rho'])}",
            )
        )
    ours = _get(stats, "split_half", "tss") or {}
    if "error" not in ours and ours:
        rows.append(
            _row(
                "Split-half TSS, token level (this project's): Pearson r",
                number(ours["r"]),
                n=ours["n"],
                detail=f"{p_value(ours.get('p'))}; Spearman-Brown {number(ours.get('spearman_brown'))}",
            )
        )
    return rows


def _temperature(stats: Mapping[str, Any]) -> list[Row]:
    rows = []
    for metric, label in (("tss", "TSS"), ("ac", "AC")):
        result = _get(stats, "temperature", metric) or {}
        if not result.get("applicable"):
            return []  # one temperature: nothing to compare
        for entry in result["per_temperature"]:
            rows.append(
                _row(
                    f"{label} at temperature {number(entry['temperature'], 1)}",
                    number(entry.get("mean")),
                    n=entry.get("n"),
                )
            )
    return rows


def _bonferroni(stats: Mapping[str, Any]) -> list[Row]:
    tests = _get(stats, "bonferroni", "tests") or {}
    m = _get(stats, "bonferroni", "m")
    labels = {
        "tss_exceeds_ac": "TSS exceeds AC",
        "ambiguous_lowers_ac": "Ambiguous tasks lower AC",
        "ambiguous_lowers_tss": "Ambiguous tasks lower TSS",
        "tss_predicts_correctness": "TSS predicts correctness",
        "median_split_correctness": "Median split by TSS",
        "tss_differs_by_model": "TSS differs by model",
        "ac_differs_by_model": "AC differs by model",
    }
    return [
        _row(
            labels.get(name, name),
            p_value(test["p_adjusted"]).replace("p", "adjusted p", 1),
            detail=f"{p_value(test['p'])} before correction; "
            + ("significant" if test["significant"] else "not significant")
            + f" at 0.05 over {m} tests",
        )
        for name, test in tests.items()
        if test.get("p") is not None
    ]
