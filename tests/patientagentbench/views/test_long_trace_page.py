"""A runaway conversation's trace page stays small: its turns come a page at a time."""

import re

import pytest

from patientagentbench.models import Trace
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.views.runs import TURNS_PER_PAGE

pytestmark = pytest.mark.django_db
MESSAGES = 20_000


@pytest.fixture
def runaway_trace(office_suite, sim_models):
    run = launch_run(
        suite=office_suite,
        models=sim_models[:1],
        tasks=list(office_suite.tasks.order_by("task_id")[:1]),
        enqueue=False,
    )
    execute_inline(run)
    trace = run.traces.get()
    messages = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} " + "x" * 80}
        for i in range(MESSAGES)
    ]
    Trace.objects.filter(pk=trace.pk).update(messages=messages)
    return trace


def test_a_long_thread_is_paged(client, researcher, runaway_trace):
    client.force_login(researcher)
    first = client.get(f"/traces/{runaway_trace.pk}/")
    body = first.content.decode()
    assert first.status_code == 200
    assert len(first.content) < 1_000_000  # the whole thread would be ~4 MB
    assert f"Turns 1–{TURNS_PER_PAGE} of {MESSAGES}" in body
    assert "message 0 " in body and f"message {TURNS_PER_PAGE} " not in body
    last_link = re.search(r'href="(\?turns=\d+)">last</a>', body).group(1)
    last = client.get(f"/traces/{runaway_trace.pk}/{last_link}").content.decode()
    assert f"message {MESSAGES - 1} " in last


def test_a_short_thread_has_no_pages(client, researcher, office_suite, sim_models):
    run = launch_run(
        suite=office_suite,
        models=sim_models[:1],
        tasks=list(office_suite.tasks.order_by("task_id")[:1]),
        enqueue=False,
    )
    execute_inline(run)
    client.force_login(researcher)
    body = client.get(f"/traces/{run.traces.get().pk}/").content.decode()
    assert 'data-testid="turn-pages"' not in body
