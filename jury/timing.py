"""How long a scoring will take, from each judge's measured latency: the median time per
verdict over its latest verdicts asked the way it asks now (per dimension, or all at once,
where one call's time is shared among its dimensions), divided by how many calls its model
takes at once (`ModelConfig.max_concurrency`, shared by every judge on that model) or the
judge itself may make (`Judge.max_concurrency`).

An estimate, said as one: it assumes enough worker slots and a server as fast as when the
verdicts were measured; a judge with no verdicts yet has no estimate, and says so.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass

from jury.models import Judge, Panel, Verdict
from jury.scoring import prompt_text_version

SAMPLE = 200  # latest verdicts per judge the median is taken over


@dataclass(frozen=True)
class JudgeLatency:
    judge: str
    median_ms: float | None  # None: no verdict measured yet
    n: int

    @property
    def median_words(self) -> str:
        if self.median_ms is None:
            return "not measured"
        if self.median_ms < 1:
            return "under 1 ms"
        if self.median_ms < 1000:
            return f"{self.median_ms:.0f} ms"
        return f"{self.median_ms / 1000:.1f} s"


@dataclass(frozen=True)
class TimeEstimate:
    seconds: float | None  # None when a judge has no measurement
    per_judge: tuple[JudgeLatency, ...]

    @property
    def unmeasured(self) -> list[str]:
        return [j.judge for j in self.per_judge if j.median_ms is None]


def judge_latency(judge: Judge) -> JudgeLatency:
    latencies = list(
        Verdict.objects.filter(
            judge=judge, latency_ms__gt=0, prompt_text_version=prompt_text_version(judge)
        )
        .order_by("-pk")
        .values_list("latency_ms", flat=True)[:SAMPLE]
    )
    median = statistics.median(latencies) if latencies else None
    return JudgeLatency(judge.name, median, len(latencies))


def scoring_time(panel: Panel, conversations: int, dimensions: int, repeat: int) -> TimeEstimate:
    """Judges on different models run side by side; judges sharing a model share its slots,
    and a judge with its own limit (`Judge.max_concurrency`) takes no more than that."""
    per_judge, busy = [], defaultdict(float)  # model -> seconds of calls on it
    longest = 0.0  # the slowest judge on its own limit
    concurrency = {}
    for judge in panel.judges.all():
        latency = judge_latency(judge)
        per_judge.append(latency)
        if latency.median_ms is None:
            continue
        seconds = conversations * dimensions * repeat * latency.median_ms / 1000
        model_limit = max(1, judge.model.max_concurrency or 1)
        own_limit = min(judge.max_concurrency or model_limit, model_limit)
        busy[judge.model_id] += seconds
        concurrency[judge.model_id] = model_limit
        longest = max(longest, seconds / own_limit)
    if any(j.median_ms is None for j in per_judge) or not per_judge:
        return TimeEstimate(None, tuple(per_judge))
    shared = max(total / concurrency[model] for model, total in busy.items())
    return TimeEstimate(max(shared, longest), tuple(per_judge))


def words(seconds: float) -> str:
    if seconds < 1:
        return "under 1 s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
