"""The runs list (newest first, filters, pages, honest progress for cancelled runs), the launch
form (tasks follow the suite, a preview that never fails on half-typed values), the favicon and
quiet logs from the embedded broker."""

import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from patientagentbench.models import Run, Suite, Trace
from patientagentbench.runs.launch import launch_run
from patientagentbench.runs.workers import progress_bar, progress_words
from patientagentbench.views.forms import ids_in, task_label

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]
HTMX = {"HX-Request": "true"}


@pytest.fixture
def six_cases(db):
    from patientagentbench.suites.case_sets import create_case_set

    return create_case_set("web-cases", 6, seed=3)


def _run(suite, created_minutes_ago: int, status=Run.Status.FINISHED, **kwargs) -> Run:
    run = Run.objects.create(suite=suite, status=status, **kwargs)
    Run.objects.filter(pk=run.pk).update(
        created_at=timezone.now() - timedelta(minutes=created_minutes_ago)
    )
    return run


def _cancelled_run(office_suite, sim_models) -> Run:
    """95 jobs (19 tasks × 5 runs): 38 done, 57 cancelled, as a run cancelled part way."""
    run = launch_run(suite=office_suite, models=sim_models[:1], repetitions=5, enqueue=False)
    traces = list(run.traces.order_by("pk").values_list("pk", flat=True))
    Trace.objects.filter(pk__in=traces[:38]).update(status=Trace.Status.DONE)
    Trace.objects.filter(pk__in=traces[38:]).update(status=Trace.Status.CANCELLED)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.CANCELLED)
    return run


def _row_order(body: str) -> list[int]:
    return [int(pk) for pk in re.findall(r">Run (\d+)</a>", body)]


# --- the runs list -----------------------------------------------------------------------------


def test_runs_are_listed_newest_first(client, researcher, office_suite):
    older = _run(office_suite, 30)
    newest = _run(office_suite, 1)
    middle = _run(office_suite, 10)
    client.force_login(researcher)
    body = client.get(reverse("run_list")).content.decode()
    assert _row_order(body) == [newest.pk, middle.pk, older.pk]
    assert "3 runs, newest first" in body


def test_runs_filter_by_suite_and_status(client, researcher, office_suite, six_cases):
    office_done = _run(office_suite, 5)
    office_cancelled = _run(office_suite, 4, status=Run.Status.CANCELLED)
    cases_done = _run(six_cases, 3)
    client.force_login(researcher)
    url = reverse("run_list")

    by_suite = client.get(url, {"suite": office_suite.pk}).content.decode()
    assert _row_order(by_suite) == [office_cancelled.pk, office_done.pk]
    by_status = client.get(url, {"status": "finished"}).content.decode()
    assert _row_order(by_status) == [cases_done.pk, office_done.pk]
    both = client.get(url, {"suite": office_suite.pk, "status": "cancelled"}).content.decode()
    assert _row_order(both) == [office_cancelled.pk]
    assert "1 run matches" in both and "Clear filters" in both
    # The form shows what is applied.
    assert re.search(rf'<option value="{office_suite.pk}" selected>office-19</option>', both)
    assert '<option value="cancelled" selected>' in both
    nothing = client.get(url, {"suite": six_cases.pk, "status": "cancelled"}).content.decode()
    assert "No runs match these filters." in nothing


@pytest.mark.parametrize(
    "params",
    [
        {"suite": "abc"},
        {"suite": "9" * 30},
        {"suite": "²"},
        {"suite": "-1"},
        {"status": "bogus"},
        {"page": "nope"},
        {"page": "999"},
    ],
)
def test_runs_list_ignores_filters_that_name_nothing(client, researcher, office_suite, params):
    run = _run(office_suite, 1)
    client.force_login(researcher)
    response = client.get(reverse("run_list"), params)
    assert response.status_code == 200
    assert _row_order(response.content.decode()) == [run.pk]


def test_pages_keep_the_filters(client, researcher, office_suite, six_cases):
    from patientagentbench.views.runs import RUNS_PER_PAGE

    now = timezone.now()
    Run.objects.bulk_create(
        Run(suite=office_suite, status=Run.Status.FINISHED, created_at=now)
        for _ in range(RUNS_PER_PAGE + 3)
    )
    _run(six_cases, 1)
    client.force_login(researcher)
    first = client.get(reverse("run_list"), {"suite": office_suite.pk}).content.decode()
    assert len(_row_order(first)) == RUNS_PER_PAGE
    assert "Page 1 of 2" in first
    link = re.search(r'href="\?([^"]*page=2)"', first).group(1).replace("&amp;", "&")
    assert f"suite={office_suite.pk}" in link
    second = client.get(f"{reverse('run_list')}?{link}").content.decode()
    assert len(_row_order(second)) == 3 and "Page 2 of 2" in second
    assert "web-cases" not in second.split("<tbody>")[1]


def test_runs_list_query_count_does_not_grow_with_runs(client, researcher, office_suite):
    client.force_login(researcher)
    counts = []
    for n in (2, 30):
        while Run.objects.count() < n:
            _run(office_suite, 1)
        client.get(reverse("run_list"))
        with CaptureQueriesContext(connection) as queries:
            client.get(reverse("run_list"), {"status": "finished"})
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_a_cancelled_run_shows_what_finished_and_what_was_cancelled(
    client, researcher, office_suite, sim_models
):
    run = _cancelled_run(office_suite, sim_models)
    client.force_login(researcher)
    for url in (reverse("run_list"), reverse("run_detail", args=[run.pk])):
        body = client.get(url).content.decode()
        assert "38 of 95 finished · 57 cancelled" in body, url
        assert 'class="done" style="width: 40%"' in body, url
        assert 'class="cancelled" style="width: 60%"' in body, url
        assert 'style="width: 100%"' not in body, url


def test_a_finished_run_fills_the_bar(client, researcher, office_suite, sim_models):
    from patientagentbench.runs.launch import execute_inline

    run = launch_run(
        suite=office_suite,
        models=sim_models[:1],
        tasks=list(office_suite.tasks.all()[:2]),
        enqueue=False,
    )
    execute_inline(run)
    client.force_login(researcher)
    body = client.get(reverse("run_detail", args=[run.pk])).content.decode()
    assert "2 of 2 finished" in body and 'class="done" style="width: 100%"' in body
    assert 'class="cancelled"' not in body


def test_progress_bar_in_the_terminal_shows_cancelled_jobs():
    counts = {"done": 30, "error": 8, "cancelled": 57, "queued": 0, "running": 0, "total": 95}
    bar = progress_bar(counts, width=20)
    assert bar == "[" + "#" * 8 + "x" * 12 + "]"
    assert progress_words(counts) == "38 of 95 finished · 57 cancelled"
    assert progress_bar({"done": 1, "total": 4, "queued": 3}, width=8) == "[##------]"
    assert progress_bar({"total": 0}, width=4) == "[----]"
    assert progress_bar(50, width=10) == "[#####-----]"


# --- the launch form ---------------------------------------------------------------------------


def _task_options(body: str) -> list[str]:
    select = body.split('name="tasks"', 1)[1].split("</select>", 1)[0]
    return re.findall(r"<option [^>]*>([^<]*)</option>", select)


def test_the_task_list_follows_the_chosen_suite(client, admin_user, office_suite, six_cases):
    client.force_login(admin_user)
    office = _task_options(
        client.get(reverse("run_launch"), {"suite": office_suite.pk}).content.decode()
    )
    assert len(office) == 19
    assert any(
        label.startswith("retrieve-001 — Find Alice&#x27;s email address") for label in office
    )
    assert not any(label.startswith("c000") for label in office)

    partial = client.get(
        reverse("run_launch"), {"suite": six_cases.pk}, headers={**HTMX, "HX-Target": "tasks-field"}
    )
    body = partial.content.decode()
    assert "<html" not in body and 'id="tasks-field"' in body
    cases = _task_options(body)
    assert len(cases) == 6
    goals = {t.task_id: t.case["goal"]["summary"] for t in six_cases.tasks.all()}
    first = cases[0]
    case_id = first.split(" — ")[0]
    assert case_id in goals and first.count(case_id) == 1  # the id once, then the case's title
    assert "retrieve-001" not in body


def _selected_suite(body: str) -> str:
    select = body.split('name="suite"', 1)[1].split("</select>", 1)[0]
    (name,) = re.findall(r"<option [^>]*selected[^>]*>([^<]*)</option>", select)
    return name


def test_the_launch_form_starts_on_office_19_when_it_is_installed(client, admin_user):
    from patientagentbench.suites.case_sets import create_case_set
    from patientagentbench.suites.install import install_all_suites

    create_case_set("asthma-cases", 2, seed=3)  # sorts before office-19
    client.force_login(admin_user)
    assert _selected_suite(client.get(reverse("run_launch")).content.decode()) == "asthma-cases"
    install_all_suites()
    body = client.get(reverse("run_launch")).content.decode()
    assert _selected_suite(body) == "office-19" and len(_task_options(body)) == 19


def test_case_set_only_fields_are_marked(client, admin_user, office_suite):
    client.force_login(admin_user)
    body = client.get(reverse("run_launch")).content.decode()
    for name in ("max_turns", "patient_model"):
        assert re.search(rf'<p data-case-set-only><label for="id_{name}"', body), name
    assert 'data-patients="false"' in body  # office-19 plays no patient


def test_task_labels_are_one_short_line():
    assert task_label("c0001", "Switch my\n primary care doctor") == (
        "c0001 — Switch my primary care doctor"
    )
    long = task_label("t", "word " * 100)
    assert len(long) <= 4 + 110 and long.endswith("…")
    assert task_label("t", "") == "t"


def test_ids_in_keeps_only_what_can_be_a_row_id():
    assert ids_in(["1", " 22 ", "abc", "²", "-3", "9" * 30, "", "4.0"]) == [1, 22]


@pytest.mark.parametrize("suite", ["abc", "", "²", "9" * 30, "-1", "1.5"])
def test_preview_never_fails_on_a_bad_suite(client, admin_user, office_suite, sim_models, suite):
    client.force_login(admin_user)
    response = client.get(
        reverse("run_preview"),
        {"suite": suite, "models": [sim_models[0].pk], "repetitions": "2"},
        headers=HTMX,
    )
    assert response.status_code == 200
    assert ">38<" in response.content.decode()  # the first suite: 19 tasks × 2 runs


def test_preview_without_a_suite_uses_the_first(client, admin_user, office_suite, sim_models):
    client.force_login(admin_user)
    body = client.get(
        reverse("run_preview"), {"models": [sim_models[0].pk]}, headers=HTMX
    ).content.decode()
    assert ">95<" in body  # 19 tasks × 5 runs (the default)


@pytest.mark.parametrize(
    ("repetitions", "temperatures", "message"),
    [
        ("abc", "1.0", "Runs (N) is a whole number from 1 to 100."),
        ("0", "1.0", "Runs (N) is a whole number from 1 to 100."),
        ("101", "1.0", "Runs (N) is a whole number from 1 to 100."),
        ("9" * 5000, "1.0", "Runs (N) is a whole number from 1 to 100."),
        ("2", "hot", "Temperatures are numbers separated by commas."),
        ("2", "5", "Give at least one temperature between 0 and 2."),
    ],
)
def test_preview_says_what_to_fix(
    client, admin_user, office_suite, sim_models, repetitions, temperatures, message
):
    client.force_login(admin_user)
    response = client.get(
        reverse("run_preview"),
        {
            "suite": office_suite.pk,
            "models": [sim_models[0].pk],
            "repetitions": repetitions,
            "temperatures": temperatures,
        },
        headers=HTMX,
    )
    assert response.status_code == 200
    assert message in response.content.decode()


def test_preview_ignores_tasks_and_models_that_are_not_the_suites(
    client, admin_user, office_suite, six_cases, sim_models
):
    client.force_login(admin_user)
    office_task = office_suite.tasks.first()
    body = client.get(
        reverse("run_preview"),
        {
            "suite": six_cases.pk,
            "tasks": [office_task.pk, "x", "9" * 30],
            "models": [sim_models[0].pk, "junk", "²"],
            "repetitions": " 3 ",
        },
        headers=HTMX,
    ).content.decode()
    assert ">18<" in body  # the case set's 6 cases × 3 runs: the office task is not one of them


def test_launch_with_a_bad_suite_is_a_form_error_not_a_500(
    client, admin_user, office_suite, sim_models
):
    client.force_login(admin_user)
    for suite in ("abc", "9" * 30, "²"):
        response = client.post(
            reverse("run_launch"),
            {
                "suite": suite,
                "models": [sim_models[0].pk],
                "tasks": ["x", "9" * 30],
                "repetitions": "x",
                "temperatures": "1.0",
                "max_iterations": 10,
            },
        )
        assert response.status_code == 200, suite
        assert "Select a valid choice" in response.content.decode()
    assert client.get(reverse("run_launch"), {"suite": "abc"}).status_code == 200
    assert not Run.objects.exists()


def test_launch_refuses_tasks_of_another_suite(
    client, admin_user, office_suite, six_cases, sim_models
):
    client.force_login(admin_user)
    response = client.post(
        reverse("run_launch"),
        {
            "suite": six_cases.pk,
            "models": [sim_models[0].pk],
            "tasks": [office_suite.tasks.first().pk],
            "repetitions": 1,
            "temperatures": "1.0",
            "max_iterations": 10,
        },
    )
    assert "Pick tasks from the chosen suite." in response.content.decode()
    # The list offered after the error is the chosen suite's.
    assert len(_task_options(response.content.decode())) == 6


def test_preview_refreshes_on_input_change_and_paste(client, admin_user, office_suite):
    client.force_login(admin_user)
    body = client.get(reverse("run_launch")).content.decode()
    trigger = re.search(r'<div id="launch-fields" [^>]*hx-trigger="([^"]+)"', body).group(1)
    events = {part.strip().split()[0] for part in trigger.split(",")}
    assert {"input", "change", "paste"} <= events


def test_imported_suites_are_not_offered(client, admin_user, office_suite):
    Suite.objects.create(name="aaa-imported", kind=Suite.Kind.IMPORTED)
    client.force_login(admin_user)
    body = client.get(reverse("run_launch")).content.decode()
    assert "aaa-imported" not in body
    assert len(_task_options(body)) == 19  # the first launchable suite's tasks


# --- favicon and logs --------------------------------------------------------------------------


def test_every_page_links_a_favicon_that_is_served(client, researcher):
    client.force_login(researcher)
    body = client.get(reverse("run_list")).content.decode()
    href = re.search(r'<link rel="icon" href="([^"]+)"', body).group(1)
    login = client.get(reverse("login")).content.decode()
    assert f'<link rel="icon" href="{href}"' in login
    # As in development: whitenoise serves static files straight from the finders.
    with override_settings(WHITENOISE_USE_FINDERS=True, WHITENOISE_AUTOREFRESH=True):
        from django.test import Client

        response = Client().get(href)
        assert response.status_code == 200
        assert response["Content-Type"].startswith("image/svg+xml")
        assert b"<svg" in b"".join(response.streaming_content)


@pytest.mark.slow
def test_the_embedded_broker_logs_no_hostname_warning(tmp_path):
    """kombu warned "No hostname was supplied" on every job sent to `filesystem://`."""
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "DATABASE_URL")}
    env["PAB_VAR_DIR"] = str(tmp_path)
    script = (
        "import django, logging; django.setup(); logging.basicConfig();"
        "from config.celery import app;"
        "from patientagentbench.runs.execution import execute_trace_job;"
        "execute_trace_job.delay(0);"
        "print(app.conf.broker_url)"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().startswith("filesystem://")
    assert "No hostname" not in result.stdout + result.stderr
    assert any((tmp_path / "broker" / "in").iterdir())  # the job was sent


def test_a_launch_over_the_job_limit_is_a_form_error_not_a_500(
    client, admin_user, office_suite, sim_models
):
    from patientagentbench.models import Run

    client.force_login(admin_user)
    temperatures = ",".join(f"{t / 10:.1f}" for t in range(14))  # 19 × 2 × 14 × 100 > 50,000
    response = client.post(
        reverse("run_launch"),
        {
            "suite": office_suite.pk,
            "models": [m.pk for m in sim_models],
            "repetitions": 100,
            "temperatures": temperatures,
            "max_iterations": 10,
        },
    )
    assert response.status_code == 200
    assert "50,000" in response.content.decode() or "50000" in response.content.decode()
    assert not Run.objects.exists()


def test_the_launch_form_offers_agents_not_judges(client, admin_user, office_suite, sim_models):
    from patientagentbench.models import ModelConfig

    ModelConfig.objects.create(name="sim-judge-a", provider="simulated", model_id="sim-judge-a")
    client.force_login(admin_user)
    page = client.get(reverse("run_launch")).content.decode()
    assert sim_models[0].name in page and "sim-judge-a" not in page
