"""Every page's <title> is plain text: a block left open once put a form and its CSRF token
into the title of the case-sets page."""

import re

import pytest
from django.urls import reverse

from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.suites.case_sets import create_case_set

pytestmark = pytest.mark.django_db
TITLE = re.compile(r"<title>(.*?)</title>", re.S)


@pytest.fixture
def pages(office_suite, sim_models):
    office = launch_run(
        suite=office_suite,
        models=sim_models[:1],
        tasks=list(office_suite.tasks.all()[:1]),
        enqueue=False,
    )
    execute_inline(office)
    cases = create_case_set("title-cases", 2, 3)
    scenario = launch_run(
        suite=cases,
        models=sim_models[:1],
        tasks=list(cases.tasks.all()[:1]),
        max_turns=4,
        enqueue=False,
    )
    execute_inline(scenario)
    task = cases.tasks.first()
    names = [
        ("home", ()),
        ("model_list", ()),
        ("model_create", ()),
        ("run_launch", ()),
        ("run_list", ()),
        ("run_detail", (office.pk,)),
        ("run_report", (office.pk,)),
        ("trace_detail", (office.traces.first().pk,)),
        ("trace_detail", (scenario.traces.first().pk,)),
        ("case_set_list", ()),
        ("case_set_detail", (cases.pk,)),
        ("case_detail", (cases.pk, task.pk)),
    ]
    return [reverse(name, args=args) for name, args in names]


def test_no_title_contains_markup(client, admin_user, clinician, pages):
    client.force_login(admin_user)
    checked = 0
    for url in pages:
        response = client.get(url, follow=True)
        assert response.status_code == 200, url
        [title] = TITLE.findall(response.content.decode())
        assert "<" not in title and "\n" not in title.strip() and len(title) < 120, (url, title)
        checked += 1
    assert checked == len(pages)
    client.force_login(clinician)
    [title] = TITLE.findall(client.get(reverse("home"), follow=True).content.decode())
    assert "<" not in title


def test_the_check_catches_a_title_with_markup():
    page = "<html><title>Case sets\n<form><input name=csrfmiddlewaretoken></form></title>"
    [title] = TITLE.findall(page)
    assert "<" in title
