"""Who may spend money through the jury, as for case sets: a panel with any judge on a real
provider is *paid* (whatever its configured prices say: prices can be missing or wrong), and
only an admin may launch or resume a paid scoring, always with a spend limit. A researcher
may run a paid panel an admin has approved, within the limit per scoring the admin set.
Judges on paid models are chosen by admins only (jury.forms.JudgeForm).

A panel with a judge on a real model *without prices* is priced at $0 a call here whatever
the provider bills, so no dollar limit bounds it: only an admin may launch or resume it, and
only with a call limit ("no price: the limit counts calls"; `jobs.reserve_call` counts each
call before it is made). Researchers cannot be approved for it until the model has prices.

An approval bounds each scoring, not what researchers spend on the panel in all: each launch
(and each resume) may spend up to it again. A dollar limit is charged after each call, so the
calls in flight when it is reached still finish: a scoring may overshoot by up to one call per
job running at once, each at most its worst case (`worst_case_cost` of one call).
"""

from __future__ import annotations

from decimal import Decimal

from django.utils import timezone

from jury.models import Judge, JuryRun, Panel
from jury.scoring import JUDGE_MAX_OUTPUT_TOKENS, PARSE_ATTEMPTS
from patientagentbench.runs.estimates import EST_TOKENS_IN_PER_CALL


def is_paid(panel: Panel) -> bool:
    # .all(), so a caller's prefetch_related("judges__model") answers without a query.
    return any(not judge.model.is_simulated for judge in panel.judges.all())


def worst_case_cost(jobs: dict[Judge, int], dimensions: int) -> Decimal:
    """Every call of these jobs (`scoring.jobs_to_make`) answered off-format until the last
    attempt, at the full answer cap; prompts at the pipeline's usual size (a long conversation
    costs more: the spend limit holds)."""
    cost = Decimal(0)
    for judge, n_jobs in jobs.items():
        calls = n_jobs * dimensions * PARSE_ATTEMPTS
        cost += judge.model.cost_of(calls * EST_TOKENS_IN_PER_CALL, calls * JUDGE_MAX_OUTPUT_TOKENS)
    return cost.quantize(Decimal("0.01"))


def unpriced_models(panel: Panel) -> list[str]:
    """The names of the panel's real models without prices (their calls count, not dollars)."""
    return sorted({j.model.name for j in panel.judges.all() if j.model.counts_calls})


def which_limit(panel: Panel) -> str:
    """The limit a scoring of this panel is bounded by, in words, for the page and the CLI."""
    unpriced = unpriced_models(panel)
    if unpriced:
        return (
            f"no price ({', '.join(unpriced)}): the limit counts calls; a scoring needs a call "
            "limit, and only an admin may launch it"
        )
    if is_paid(panel):
        return "paid models: a spend limit in USD bounds each scoring"
    return "simulated judges only: no cost, no limit needed"


def launch_refusal(
    *,
    is_admin: bool,
    panel: Panel,
    spend_limit: Decimal | None,
    call_limit: int | None = None,
) -> str | None:
    """Why this person may not launch this panel with these limits; None when they may."""
    if not is_paid(panel):
        return None
    if unpriced_models(panel):
        return _call_limit_refusal(is_admin, panel, call_limit)
    return _limit_refusal(is_admin, panel, spend_limit)


def resume_refusal(
    *,
    is_admin: bool,
    jury_run: JuryRun,
    spend_limit: Decimal | None,
    call_limit: int | None = None,
) -> str | None:
    """As for a launch, with the scoring's own limits where no new one is given."""
    panel = jury_run.panel
    if not is_paid(panel):
        return None
    if unpriced_models(panel):
        calls = call_limit if call_limit is not None else jury_run.call_limit
        return _call_limit_refusal(is_admin, panel, calls)
    limit = spend_limit if spend_limit is not None else jury_run.spend_limit
    return _limit_refusal(is_admin, panel, limit)


def _call_limit_refusal(is_admin: bool, panel: Panel, call_limit: int | None) -> str | None:
    unpriced = ", ".join(unpriced_models(panel))
    if not is_admin:
        return (
            f"Panel {panel.name} has a judge on a model without prices ({unpriced}): no dollar "
            "limit can bound what it spends, so only an admin may launch or resume it, with a "
            "call limit. Ask an admin, or set the model's prices."
        )
    if call_limit is None or call_limit <= 0:
        return (
            f"Panel {panel.name} has a judge on a model without prices ({unpriced}): no price, "
            "so the limit counts calls. Set a call limit."
        )
    return None


def _limit_refusal(is_admin: bool, panel: Panel, limit: Decimal | None) -> str | None:
    if not is_admin and panel.approved_spend_limit is None:
        return (
            f"Panel {panel.name} calls paid models: an admin must approve it for researchers "
            "(with a spend limit) before it can be launched or resumed."
        )
    if limit is None or limit <= 0:
        return f"Panel {panel.name} calls paid models: set a spend limit."
    if not is_admin and limit > panel.approved_spend_limit:
        return (
            f"Panel {panel.name} is approved up to ${panel.approved_spend_limit:.2f} per "
            "scoring; ask an admin for more."
        )
    return None


def approve(panel: Panel, by, spend_limit: Decimal | None) -> None:
    """An admin's approval for researchers up to `spend_limit` per scoring; None withdraws it."""
    panel.approved_spend_limit = spend_limit
    panel.approved_by = by if spend_limit is not None else None
    panel.approved_at = timezone.now() if spend_limit is not None else None
    panel.save(update_fields=["approved_spend_limit", "approved_by", "approved_at"])
