"""Money through the jury, by role: only admins choose paid judge models and launch or resume
a paid scoring, always with a spend limit; researchers run paid panels an admin approved,
within the admin's limit. Simulated panels stay free for everyone."""

from decimal import Decimal

import pytest
from django.urls import reverse

from jury.models import Judge, JuryRun
from jury.scoring import launch_jury
from patientagentbench.models import ModelConfig
from tests.jury.conftest import make_panel, scenario_run, simulated_model

pytestmark = pytest.mark.django_db


@pytest.fixture
def paid_model(db):
    return ModelConfig.objects.create(
        name="gpt-judge",
        provider="openai",
        model_id="gpt-x",
        api_key_env="OPENAI_API_KEY",
        price_in=Decimal("2.5"),
        price_out=Decimal("10"),
    )


@pytest.fixture
def paid_panel(paid_model):
    return make_panel("paid-panel", paid_model, simulated_model("sim-judge-a"))


@pytest.fixture
def run(sim_models):
    return scenario_run(sim_models)


def launch(client, run, panel, limit=""):
    return client.post(
        reverse("jury_launch", args=[run.pk]),
        {"panel": panel.pk, "repeat": 1, "spend_limit": limit},
        follow=True,
    )


def test_a_researcher_cannot_put_a_judge_on_a_paid_model(client, researcher, paid_model):
    client.force_login(researcher)
    data = {"name": "pricey", "model": paid_model.pk, "prompt_version": "1", "temperature": 0}
    page = client.post(reverse("jury_judge_new"), data)
    assert page.status_code == 200 and "Select a valid choice" in page.content.decode()
    assert not Judge.objects.filter(name="pricey").exists()


def test_an_admin_can(client, admin_user, paid_model):
    client.force_login(admin_user)
    data = {"name": "pricey", "model": paid_model.pk, "prompt_version": "1", "temperature": 0}
    assert client.post(reverse("jury_judge_new"), data).status_code == 302
    assert Judge.objects.get(name="pricey").model == paid_model


def test_a_researcher_cannot_launch_an_unapproved_paid_panel(client, researcher, run, paid_panel):
    client.force_login(researcher)
    page = launch(client, run, paid_panel, "100").content.decode()
    assert "an admin must approve it" in page
    assert not JuryRun.objects.exists()


def test_an_admin_launches_a_paid_panel_only_with_a_limit(client, admin_user, run, paid_panel):
    client.force_login(admin_user)
    assert "set a spend limit" in launch(client, run, paid_panel).content.decode()
    assert not JuryRun.objects.exists()
    launch(client, run, paid_panel, "2")
    assert JuryRun.objects.get().spend_limit == Decimal("2")


def test_approved_researchers_launch_within_the_admins_limit(
    client, admin_user, researcher, run, paid_panel
):
    client.force_login(admin_user)
    client.post(reverse("jury_panel_approve", args=[paid_panel.pk]), {"spend_limit": "1.50"})
    client.force_login(researcher)
    assert "approved up to $1.50" in launch(client, run, paid_panel, "5").content.decode()
    assert not JuryRun.objects.exists()
    launch(client, run, paid_panel)  # empty: the approved limit
    assert JuryRun.objects.get().spend_limit == Decimal("1.50")


def test_a_researcher_cannot_raise_a_paid_scorings_limit_on_resume(
    client, admin_user, researcher, run, paid_panel
):
    paid_panel.approved_spend_limit = Decimal("1")
    paid_panel.save()
    jury_run = launch_jury(panel=paid_panel, run=run, spend_limit=Decimal("1"), enqueue=False)
    JuryRun.objects.filter(pk=jury_run.pk).update(status="stopped", spent=Decimal("1"))
    jury_run.jobs.update(status="cancelled")  # as stopping at the limit leaves them
    client.force_login(researcher)
    page = client.post(
        reverse("jury_run_resume", args=[jury_run.pk]), {"spend_limit": "50"}, follow=True
    )
    assert "approved up to $1.00" in page.content.decode()
    jury_run.refresh_from_db()
    assert jury_run.spend_limit == Decimal("1") and jury_run.status == "stopped"
    client.force_login(admin_user)
    client.post(reverse("jury_run_resume", args=[jury_run.pk]), {"spend_limit": "3"})
    jury_run.refresh_from_db()
    assert jury_run.spend_limit == Decimal("3") and jury_run.status == "running"


def test_only_an_admin_approves(client, researcher, paid_panel):
    client.force_login(researcher)
    response = client.post(
        reverse("jury_panel_approve", args=[paid_panel.pk]), {"spend_limit": "999"}
    )
    assert response.status_code == 403
    paid_panel.refresh_from_db()
    assert paid_panel.approved_spend_limit is None


def test_the_launch_page_shows_the_worst_case_before_launch(client, researcher, run, paid_panel):
    client.force_login(researcher)
    page = client.get(reverse("jury_launch", args=[run.pk])).content.decode()
    assert "paid-panel" in page and "at most about $" in page
    assert "only an admin may launch it" in page


def test_simulated_panels_stay_free_for_researchers(client, researcher, run, sim_panel):
    client.force_login(researcher)
    launch(client, run, sim_panel)
    assert JuryRun.objects.get().spend_limit is None


def test_the_worst_case_is_for_the_chosen_conversations_not_the_whole_run(
    client, researcher, run, paid_panel
):
    client.force_login(researcher)
    url = reverse("jury_launch", args=[run.pk])

    def worst_case(page: str) -> Decimal:
        return Decimal(page.split("at most about $")[1].split(";")[0].split(")")[0])

    whole = worst_case(client.get(url).content.decode())
    one = {"panel": paid_panel.pk, "repeat": 1, "conversations": "sample", "sample_size": 1}
    sample = worst_case(client.post(url, one | {"estimate": "1"}).content.decode())
    n = run.traces.count()
    assert sample < whole and abs(sample * n - whole) <= Decimal("0.01") * n  # cents rounded
    assert not JuryRun.objects.exists()


# --- a real model without prices: the limit counts calls (issue 34 #1) ----------------------


@pytest.fixture
def unpriced_panel(db):
    """A judge on a real provider whose config has no prices: every call is charged $0."""
    model = ModelConfig.objects.create(
        name="qwen-local", provider="openai_compatible", model_id="qwen", base_url="http://x"
    )
    return make_panel("unpriced-panel", model)


def launch_with_calls(client, run, panel, limit="", calls=""):
    return client.post(
        reverse("jury_launch", args=[run.pk]),
        {"panel": panel.pk, "repeat": 1, "spend_limit": limit, "call_limit": calls},
        follow=True,
    )


def test_an_approved_dollar_limit_does_not_let_a_researcher_launch_an_unpriced_panel(
    client, admin_user, researcher, run, unpriced_panel
):
    # The finding: with a $0.01 approval, 120 real calls were made and $0 recorded.
    unpriced_panel.approved_spend_limit = Decimal("0.01")
    unpriced_panel.save()
    client.force_login(researcher)
    page = launch_with_calls(client, run, unpriced_panel, "0.01", "120").content.decode()
    assert "without prices (qwen-local)" in page and "only an admin may launch" in page
    assert not JuryRun.objects.exists()


def test_an_admin_launches_an_unpriced_panel_only_with_a_call_limit(
    client, admin_user, run, unpriced_panel
):
    client.force_login(admin_user)
    page = launch_with_calls(client, run, unpriced_panel, "5").content.decode()
    assert "no price, so the limit counts calls" in page
    assert not JuryRun.objects.exists()
    scoring = launch_with_calls(client, run, unpriced_panel, calls="12").content.decode()
    assert JuryRun.objects.get().call_limit == 12
    assert "call limit 12 (no price: the limit counts calls)" in scoring


def test_the_pages_say_the_limit_counts_calls(client, admin_user, researcher, run, unpriced_panel):
    client.force_login(researcher)
    page = client.get(reverse("jury_launch", args=[run.pk])).content.decode()
    assert "no price (qwen-local): the limit counts calls" in page
    client.force_login(admin_user)
    panel_page = client.get(reverse("jury_panel", args=[unpriced_panel.pk])).content.decode()
    assert "Limit: no price (qwen-local): the limit counts calls" in panel_page
    assert "Researchers cannot be approved for it" in panel_page


def test_an_admin_cannot_approve_researchers_for_an_unpriced_panel(
    client, admin_user, unpriced_panel
):
    client.force_login(admin_user)
    client.post(reverse("jury_panel_approve", args=[unpriced_panel.pk]), {"spend_limit": "5"})
    unpriced_panel.refresh_from_db()
    assert unpriced_panel.approved_spend_limit is None
