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
        "unpriced": unpriced(models),  # their calls count $0 here: a call limit bounds them
    }


def unpriced(models) -> list[str]:
    """Names of the real models without prices: their calls cost $0 here whatever they cost,
    so no dollar limit bounds them (`ModelConfig.counts_calls`)."""
    return sorted({model.name for model in models if model is not None and model.counts_calls})


def call_limit_refusal(models, call_limit: int | None) -> str | None:
    """Why a run on these models needs a call limit it lacks; None when it has what it needs."""
    names = unpriced(models)
    if not names or (call_limit is not None and call_limit > 0):
        return None
    return (
        f"No price for {', '.join(names)}: a spend limit cannot bound it (its calls cost $0 "
        "here), so the limit counts calls. Set a call limit."
    )
