"""Time the consistency metrics against DESIGN §10's targets.

A synthetic study of the seed paper's shape (6 models x 19 tasks x 10 runs = 1,140 traces)
and one cell of N = 100, with random tool sequences of 2-8 calls and random arguments
(seeded, so every run measures the same data). Prints the median of several repeats.

    .venv/bin/python benchmarks/metrics.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from patientagentbench.analysis.metrics import TraceData, cell_metrics  # noqa: E402

MODELS, TASKS, RUNS = 6, 19, 10
LARGE_CELL = 100
REPEATS = 7
STUDY_TARGET_S, CELL_TARGET_S = 1.0, 0.050

# Tools and argument keys shaped like office-19's; values come from small pools, so argument
# sets sometimes agree between runs and sometimes do not, as real runs' do.
TOOL_KEYS = {
    "search_contacts": ["query"],
    "get_contact": ["name"],
    "list_calendar_events": ["start_date", "end_date"],
    "create_calendar_event": ["title", "date", "start_time", "end_time", "attendees"],
    "send_email": ["to", "subject", "body"],
    "search_emails": ["query"],
    "search_products": ["query"],
    "calculate": ["expression"],
    "get_weather": ["city"],
    "create_note": ["title", "content"],
}
VALUE_POOL = 6


def random_arguments(rng: random.Random, tool: str) -> dict:
    arguments = {}
    for key in TOOL_KEYS[tool]:
        if rng.random() < 0.15:
            continue  # an optional key left out
        if key == "attendees":
            arguments[key] = rng.sample(["alice", "bob", "carol", "dave"], rng.randint(1, 3))
        else:
            arguments[key] = f"{key}-{rng.randrange(VALUE_POOL)}"
    return arguments


def random_trace(rng: random.Random) -> TraceData:
    tools = list(TOOL_KEYS)
    calls = []
    for _ in range(rng.randint(2, 8)):
        tool = rng.choice(tools)
        calls.append((tool, random_arguments(rng, tool)))
    return TraceData(
        calls=calls,
        final_response=rng.choice(["Done.", "Done", "I sent it.", ""]),
        error="RateLimitError: 429" if rng.random() < 0.02 else None,
        correct=rng.random() < 0.7,
    )


def median_seconds(work, repeats: int = REPEATS) -> float:
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def report(label: str, seconds: float, target: float) -> None:
    verdict = "ok" if seconds < target else "OVER TARGET"
    print(f"{label:<44} {seconds * 1000:8.1f} ms   target < {target * 1000:.0f} ms   {verdict}")


def main() -> None:
    rng = random.Random(20260301)
    study = [[random_trace(rng) for _ in range(RUNS)] for _ in range(MODELS * TASKS)]
    large_cell = [random_trace(rng) for _ in range(LARGE_CELL)]
    cell_metrics(large_cell)  # warm imports and caches outside the timing

    traces = sum(len(cell) for cell in study)
    study_s = median_seconds(lambda: [cell_metrics(cell) for cell in study])
    cell_s = median_seconds(lambda: cell_metrics(large_cell))
    print(f"median of {REPEATS} repeats, Python {sys.version.split()[0]}")
    report(f"study: {len(study)} cells, {traces} traces", study_s, STUDY_TARGET_S)
    report(f"one cell of N = {LARGE_CELL}", cell_s, CELL_TARGET_S)
    analysis_s = median_seconds(lambda: whole_analysis(study), repeats=3)
    report("whole analysis (cells, frame, every test)", analysis_s, STUDY_TARGET_S)


def whole_analysis(study) -> None:
    """What the report page computes: cell records, the frame, every statistic."""
    from patientagentbench.analysis.statistics import full_report
    from patientagentbench.analysis.study import cell_record, cells_frame

    categories = ("retrieval", "scheduling", "computation", "composition", "ambiguous")
    records = [
        cell_record(
            model=f"model-{index % MODELS}",
            task_id=f"task-{index // MODELS}",
            category=categories[(index // MODELS) % len(categories)],
            difficulty=("easy", "medium", "hard")[index % 3],
            temperature=1.0,
            traces=cell,
        )
        for index, cell in enumerate(study)
    ]
    full_report(cells_frame(records))


if __name__ == "__main__":
    main()
