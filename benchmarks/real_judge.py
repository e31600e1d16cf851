"""Score a fixed set of conversations with a real model behind an OpenAI-compatible URL, once
per judge call mode, and print what a researcher needs before trusting that judge: parse
rate, not applicable (allowed and forbidden), truncated, unparseable, errors, time per
verdict, test-retest agreement, agreement between the two call modes, and how each
dimension's score separates conversations that passed their automatic outcome checks from
those that failed (mean of each group, AUC).

Run by hand against a local model (never in CI): see ../shared/real-model/README.md.

    pid=$(../shared/real-model/serve.sh "$HOME/real-model" 1.5b 18080)
    .venv/bin/python benchmarks/real_judge.py http://127.0.0.1:18080/v1 --conversations 6

The conversations are the simulated agents' (sim-steady and sim-careless) on generated
scenario cases, chosen half passing and half failing their outcome checks, in a fresh
SQLite database; nothing of the project's own database is touched.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.scratch import scratch_django  # noqa: E402


def setup_django(timeout_s: float) -> None:
    # A 1.5B model on two shared cores reads a 3,000-token judge prompt in minutes.
    scratch_django(
        "pab-real-judge-",
        DEBUG="true",
        PROVIDER_TIMEOUT_S=str(timeout_s),
        TRACE_WALL_CLOCK_S=str(timeout_s * 12),
    )
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def conversations(n: int, cases: int, seed: int) -> list[int]:
    """Finished conversations, half passing and half failing their outcome checks."""
    from patientagentbench.models import ModelConfig, Trace
    from patientagentbench.runs.launch import execute_inline, launch_run
    from patientagentbench.suites.case_sets import create_case_set

    agents = [
        ModelConfig.objects.create(name=name, provider="simulated", model_id=name)
        for name in ("sim-steady", "sim-careless")
    ]
    suite = create_case_set("real-judge-cases", cases, seed)
    run = launch_run(suite=suite, models=agents, repetitions=1, max_turns=8, enqueue=False)
    execute_inline(run)
    done = run.traces.filter(status=Trace.Status.DONE).order_by("pk")
    passing = list(done.filter(correct=True).values_list("pk", flat=True))
    failing = list(done.filter(correct=False).values_list("pk", flat=True))
    half = n // 2
    chosen = passing[: n - min(half, len(failing))] + failing[:half]
    return sorted(chosen)


def score(base_url: str, model_id: str, mode: str, trace_ids: list[int], repeat: int):
    from jury.models import Judge, Panel, Verdict
    from jury.scoring import execute_inline, launch_jury
    from patientagentbench.models import ModelConfig, Trace

    model = ModelConfig.objects.create(
        name=f"real-{mode}",
        provider="openai_compatible",
        model_id=model_id,
        base_url=base_url,
        max_concurrency=1,
        max_output_tokens=4096,
    )
    judge = Judge.objects.create(name=f"real-judge-{mode}", model=model, call_mode=mode)
    panel = Panel.objects.create(name=f"real-{mode}")
    panel.judges.add(judge)
    run = Trace.objects.get(pk=trace_ids[0]).run
    jury_run = launch_jury(panel=panel, run=run, repeat=repeat, trace_ids=trace_ids, enqueue=False)
    started = time.perf_counter()
    execute_inline(jury_run)
    wall_s = time.perf_counter() - started
    rows = list(
        Verdict.objects.filter(panel=panel).values(
            "trace_id", "dimension", "repetition", "status", "score", "latency_ms", "attempt_log"
        )
    )
    return rows, wall_s


def report(mode: str, rows: list[dict], wall_s: float, outcome: dict[int, bool]) -> None:
    counts = defaultdict(int)
    for row in rows:
        counts[row["status"]] += 1
    total = len(rows)
    calls = sum(len(r["attempt_log"]) for r in rows)
    print(f"\n## {mode.replace('_', ' ')}: {total} verdicts in {wall_s / 60:.1f} min")
    print(
        "parse rate (scored or allowed N/A) "
        f"{(counts['ok'] + counts['not_applicable']) / total:.0%} · "
        + " · ".join(f"{status} {counts[status]}" for status in sorted(counts))
    )
    latencies = [r["latency_ms"] for r in rows if r["latency_ms"]]
    print(
        f"time per verdict: median {statistics.median(latencies) / 1000:.1f} s; "
        f"attempts logged {calls} ({calls / total:.2f} per verdict)"
    )
    print("test-retest: " + _agreement(rows, "repetition"))
    print(
        "separation by outcome check (jury.pure.validity: repetitions averaged per conversation):"
    )
    for row in _separations(rows, outcome):
        interval = f" [{row.low:.2f}, {row.high:.2f}] {row.method}" if row.low is not None else ""
        auc = f"{row.auc:.2f}" if row.auc is not None else "—"
        print(
            f"  {row.dimension:24} passed {_mean(row.mean_pass)} (n={row.n_pass}) · failed "
            f"{_mean(row.mean_fail)} (n={row.n_fail}) · AUC {auc}{interval} · {row.verdict}"
        )


def _separations(rows, outcome):
    from jury.pure.validity import separations

    records = [{**row, "judge": "real", "conversation": row["trace_id"]} for row in rows]
    return separations(records, outcome)


def _mean(value) -> str:
    return f"{value:.1f}" if value is not None else "—"


def _agreement(rows: list[dict], between: str) -> str:
    """Exact and adjacent agreement over pairs of `between` (repetitions, or call modes) of
    the same conversation and dimension: jury.pure.consistency's pooled row."""
    from jury.pure.consistency import ALL, retest

    records = [
        {**row, "judge": "real", "conversation": (row["trace_id"], row.get("unit", 0))}
        | {"repetition": row[between]}
        for row in rows
    ]
    (pooled,) = [r for r in retest(records) if r.dimension == ALL]
    if not pooled.n_pairs:
        return "no pair of scored answers"
    return f"{pooled.n_pairs} pairs, exact {pooled.exact:.2f}, adjacent {pooled.adjacent:.2f}"


def between_modes(results: dict[str, list[dict]]) -> None:
    rows = [
        {**row, "mode": mode, "unit": row["repetition"]}
        for mode, group in results.items()
        for row in group
    ]
    print("\nagreement between the call modes (same conversation, dimension, repetition): ")
    print("  " + _agreement(rows, "mode"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "base_url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:18080/v1"
    )
    parser.add_argument("--model", default="qwen2.5-coder", help="model id the server expects")
    parser.add_argument("--conversations", type=int, default=6)
    parser.add_argument("--cases", type=int, default=8, help="generated cases the agents play")
    parser.add_argument("--repeat", type=int, default=2, help="repetitions per judge (test-retest)")
    parser.add_argument(
        "--per-dimension-repeat",
        type=int,
        default=None,
        help="repetitions for the per-dimension mode (default --repeat): it makes six times "
        "the calls",
    )
    parser.add_argument(
        "--modes", default="one_call,per_dimension", help="call modes to compare, in order"
    )
    parser.add_argument("--timeout", type=float, default=900, help="seconds per call")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    setup_django(args.timeout)
    from patientagentbench.models import Trace

    trace_ids = conversations(args.conversations, args.cases, args.seed)
    outcome = dict(Trace.objects.filter(pk__in=trace_ids).values_list("pk", "correct"))
    print(
        f"# real judge {args.model} at {args.base_url}: {len(trace_ids)} conversations "
        f"({sum(outcome.values())} passed their outcome checks), repeat {args.repeat}"
    )
    results = {}
    for mode in args.modes.split(","):
        repeat = args.repeat
        if mode == "per_dimension" and args.per_dimension_repeat:
            repeat = args.per_dimension_repeat
        rows, wall_s = score(args.base_url, args.model, mode, trace_ids, repeat)
        results[mode] = rows
        report(mode, rows, wall_s, outcome)
        sys.stdout.flush()
    if len(results) == 2:
        between_modes(results)


if __name__ == "__main__":
    main()
