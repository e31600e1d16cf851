"""Who may spend money through the jury, as for case sets: a panel with any judge on a real
provider is *paid* (whatever its configured prices say: prices can be missing or wrong), and
only an admin may launch or resume a paid scoring, always with a spend limit. A researcher
may run a paid panel an admin has approved, within the limit per scoring the admin set.
Judges on paid models are chosen by admins only (jury.forms.JudgeForm)."""

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


def launch_refusal(*, is_admin: bool, panel: Panel, spend_limit: Decimal | None) -> str | None:
    """Why this person may not launch this panel with this limit; None when they may."""
    if not is_paid(panel):
        return None
    return _limit_refusal(is_admin, panel, spend_limit)


def resume_refusal(*, is_admin: bool, jury_run: JuryRun, spend_limit: Decimal | None) -> str | None:
    """As for a launch, with the scoring's own limit when no new one is given."""
    if not is_paid(jury_run.panel):
        return None
    limit = spend_limit if spend_limit is not None else jury_run.spend_limit
    return _limit_refusal(is_admin, jury_run.panel, limit)


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
