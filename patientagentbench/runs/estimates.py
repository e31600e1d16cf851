"""What a launch will cost before it starts: job count and a token-based estimate."""

from decimal import Decimal

from patientagentbench.runs.launch import job_count

# A tool-calling job on office-19 takes about four model calls; each call re-sends the
# growing conversation. These are planning figures, shown as an estimate.
EST_CALLS_PER_JOB = 4
EST_TOKENS_IN_PER_CALL = 1500
EST_TOKENS_OUT_PER_CALL = 150


def estimate(tasks: int, models, temperatures: int, repetitions: int) -> dict:
    models = list(models)
    per_model_jobs = job_count(tasks, 1, temperatures, repetitions)
    cost = Decimal(0)
    for model in models:
        calls = per_model_jobs * EST_CALLS_PER_JOB
        cost += model.cost_of(calls * EST_TOKENS_IN_PER_CALL, calls * EST_TOKENS_OUT_PER_CALL)
    return {
        "jobs": per_model_jobs * len(models),
        "calls": per_model_jobs * len(models) * EST_CALLS_PER_JOB,
        "cost": cost.quantize(Decimal("0.01")),
    }
