"""The trace page tells a researcher what went wrong beyond the score: an agent copying the
patient (`agent_echo`)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from patientagentbench.models import Trace
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.suites.case_sets import create_case_set


@pytest.fixture
def scenario_trace(db, sim_models):
    suite = create_case_set("fault-cases", 2, seed=4)
    run = launch_run(suite=suite, models=sim_models[:1], max_turns=4, enqueue=False)
    execute_inline(run)
    return run.traces.order_by("pk").first()


def page(client, researcher, trace) -> str:
    client.force_login(researcher)
    return client.get(reverse("trace_detail", args=[trace.pk])).content.decode()


@pytest.mark.django_db
def test_an_agent_copying_the_patient_is_flagged_with_a_link_to_the_turn(
    client, researcher, scenario_trace
):
    said = "My chest has hurt since Monday and it goes down my left arm."
    Trace.objects.filter(pk=scenario_trace.pk).update(
        messages=[
            {"role": "system", "content": "clinic assistant"},
            {"role": "user", "content": said},
            {"role": "assistant", "content": said.upper()},
            {"role": "user", "content": "Why are you repeating me?"},
        ]
    )
    body = page(client, researcher, scenario_trace)
    assert 'data-testid="faults"' in body and "<code>agent_echo</code>" in body
    assert 'href="?turns=1#turn-2"' in body


@pytest.mark.django_db
def test_a_conversation_without_faults_shows_none(client, researcher, scenario_trace):
    assert 'data-testid="faults"' not in page(client, researcher, scenario_trace)
