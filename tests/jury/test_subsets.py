"""Scoring a chosen part of a run (issue 21 Must 5): a seeded sample of N, chosen ids, from
the page and from run_jury; and the launch page's time estimate from measured latency
(Must 4)."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from jury import timing
from jury.models import JuryRun, Verdict
from jury.pure import subsets
from jury.scoring import JuryError, execute_inline, launch_jury
from ratings.rubric import cached_rubric
from tests.jury.conftest import simulated_model, verdict
from tests.jury.test_scoring import panel_of, scenario_run

SCORED = [d.key for d in cached_rubric().scored]
__all__ = ["scenario_run"]


@given(st.sets(st.integers(1, 10_000), max_size=60), st.integers(1, 80), st.integers(0, 99))
def test_a_sample_is_n_distinct_ids_of_the_run_the_same_for_the_same_seed(ids, n, seed):
    chosen = subsets.sample(ids, n, seed)
    assert len(chosen) == min(n, len(ids)) and set(chosen) <= ids
    assert chosen == sorted(chosen) and chosen == subsets.sample(list(ids)[::-1], n, seed)


def test_ids_are_read_or_refused_naming_the_piece():
    assert subsets.parse_ids("3, 5 9,") == [3, 5, 9]
    with pytest.raises(ValueError, match="'t4' is not a conversation id"):
        subsets.parse_ids("3, t4")


@pytest.mark.django_db
def test_a_launch_on_chosen_conversations_queues_only_those(scenario_run):
    panel = panel_of(simulated_model("sim-judge-a"), simulated_model("sim-judge-b"))
    ids = list(scenario_run.traces.values_list("pk", flat=True))
    jury_run = launch_jury(panel=panel, run=scenario_run, trace_ids=ids[:2], enqueue=False)
    assert sorted(set(jury_run.jobs.values_list("trace_id", flat=True))) == ids[:2]
    assert jury_run.jobs.count() == 2 * 2
    with pytest.raises(JuryError, match=f"Conversation {max(ids) + 1} is not a finished"):
        launch_jury(panel=panel, run=scenario_run, trace_ids=[ids[0], max(ids) + 1])
    assert JuryRun.objects.count() == 1  # the refused launch wrote nothing


@pytest.mark.django_db
def test_run_jury_scores_a_sample_or_chosen_ids(scenario_run):
    panel_of(simulated_model("sim-judge-a"), name="cli")
    ids = list(scenario_run.traces.values_list("pk", flat=True))
    call_command(
        "run_jury", "--run", str(scenario_run.pk), "--panel", "cli", "--sample", "2",
        "--seed", "4", "--inline", stdout=StringIO(),
    )  # fmt: skip
    first = JuryRun.objects.get()
    scored = set(Verdict.objects.filter(job__jury_run=first).values_list("trace_id", flat=True))
    assert scored == set(subsets.sample(ids, 2, 4))
    assert first.subset == f"a random sample of 2 of {len(ids)} finished conversations (seed 4)"
    call_command(
        "run_jury", "--run", str(scenario_run.pk), "--panel", "cli", "--traces",
        f"{ids[-1]}", "--inline", stdout=StringIO(),
    )  # fmt: skip
    second = JuryRun.objects.exclude(pk=first.pk).get()
    assert set(second.jobs.values_list("trace_id", flat=True)) == {ids[-1]}
    with pytest.raises(CommandError, match="'x' is not a conversation id"):
        call_command("run_jury", "--run", str(scenario_run.pk), "--panel", "cli", "--traces", "x")
    with pytest.raises(CommandError, match="Study 999 holds no conversation"):
        call_command("run_jury", "--run", str(scenario_run.pk), "--panel", "cli", "--study", "999")


@pytest.mark.django_db
def test_the_launch_page_scores_a_sample_and_says_so(client, researcher, scenario_run):
    panel = panel_of(simulated_model("sim-judge-a"), name="page")
    client.force_login(researcher)
    url = reverse("jury_launch", args=[scenario_run.pk])
    page = client.get(url).content.decode()
    assert "A random sample of N" in page and "Chosen conversation ids" in page
    bad = client.post(url, {"panel": panel.pk, "repeat": 1, "conversations": "sample"})
    assert "Say how many conversations to sample." in bad.content.decode()
    response = client.post(
        url, {"panel": panel.pk, "repeat": 1, "conversations": "sample", "sample_size": 2}
    )
    jury_run = JuryRun.objects.get()
    assert response.url == reverse("jury_run", args=[jury_run.pk])
    assert len(set(jury_run.jobs.values_list("trace_id", flat=True))) == 2
    assert "a random sample of 2" in client.get(response.url).content.decode()


@pytest.mark.django_db
def test_the_time_estimate_comes_from_measured_latency_or_says_there_is_none(
    client, researcher, scenario_run
):
    model = simulated_model("sim-judge-a")
    model.max_concurrency = 2
    model.save()
    panel = panel_of(model, name="timed")
    judge = panel.judges.get()
    client.force_login(researcher)
    url = reverse("jury_launch", args=[scenario_run.pk])
    assert "no measured verdict yet" in client.get(url).content.decode()

    trace = scenario_run.traces.first()
    for repetition, ms in enumerate([1000, 3000, 2000]):  # median 2 s per verdict
        verdict(
            panel, judge, trace, SCORED[0], "ok", 3, repetition,
            latency_ms=ms, prompt_text_version="2",
        )  # fmt: skip
    conversations = scenario_run.traces.count()
    estimate = timing.scoring_time(panel, conversations, len(SCORED), 1)
    assert estimate.seconds == pytest.approx(conversations * len(SCORED) * 2.0 / 2)
    page = client.get(url).content.decode()
    assert f"about <b>{timing.words(estimate.seconds)}</b>" in page
    assert "2.0 s per verdict (median of 3)" in page


@pytest.mark.django_db
def test_measured_latency_counts_only_verdicts_asked_the_judges_current_way(scenario_run):
    panel = panel_of(simulated_model("sim-judge-a"), name="modes")
    execute_inline(launch_jury(panel=panel, run=scenario_run, enqueue=False))
    judge = panel.judges.get()
    assert timing.judge_latency(judge).n == Verdict.objects.filter(judge=judge).count()
    judge.call_mode = judge.CallMode.ONE_CALL
    judge.save()
    assert timing.judge_latency(judge).median_ms is None


def call_estimate(page: str) -> str:
    return page.split('data-testid="call-estimate">')[1].split("</p>")[0]


@pytest.mark.django_db
def test_the_call_estimate_counts_the_chosen_sample_its_repetitions_and_what_is_already_scored(
    client, researcher, scenario_run
):
    panel = panel_of(simulated_model("sim-judge-a"), name="counted")
    client.force_login(researcher)
    url = reverse("jury_launch", args=[scenario_run.pk])
    everything = scenario_run.traces.count() * len(SCORED)
    assert f"counted {everything} calls in" in call_estimate(client.get(url).content.decode())
    choice = {"panel": panel.pk, "repeat": 2, "conversations": "sample", "sample_size": 2}
    page = client.post(url, choice | {"estimate": "1"}).content.decode()
    assert not JuryRun.objects.exists()  # an estimate launches nothing
    estimate = call_estimate(page)
    assert "a random sample of 2" in estimate and "2 repetitions" in estimate
    assert f"counted {2 * 2 * len(SCORED)} calls in 4 jobs" in estimate
    client.post(url, choice)
    jobs = JuryRun.objects.get().jobs.count()
    assert jobs == 4  # what the estimate said
    again = call_estimate(client.post(url, choice | {"estimate": "1"}).content.decode())
    assert "counted 0 calls in 0 jobs" in again  # scoring again adds only what is missing
