"""Writing a case set with a paid model is an admin's action, for a bounded number of cases,
under a spend limit checked before the job exists; the offline template writer stays open
to researchers."""

from decimal import Decimal

import pytest
from django.urls import reverse

from patientagentbench.models import CaseSetJob, ModelConfig
from patientagentbench.views.case_sets import (
    MODEL_WRITER_MAX_COUNT,
    WRITER_TOKENS_IN_PER_CASE,
    WRITER_TOKENS_OUT_PER_CASE,
    writer_cost_bound,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def paid_writer(db):
    # $2.50 in and $10 out per million tokens.
    return ModelConfig.objects.create(
        name="gpt-writer",
        provider="openai",
        model_id="gpt-4.1",
        price_in=Decimal("2.50"),
        price_out=Decimal("10.00"),
    )


@pytest.fixture
def case_set_jobs_sent(monkeypatch):
    jobs = []  # what the broker would deliver
    monkeypatch.setattr(
        "patientagentbench.suites.case_sets.generate_case_set_job.delay", jobs.append
    )
    return jobs


def generate(client, **fields):
    data = {"name": "new-set", "count": 10, "seed": 3, "writer": "template"} | fields
    return client.post(reverse("case_set_list"), data)


def test_the_bound_is_three_attempts_at_full_length(paid_writer):
    assert WRITER_TOKENS_IN_PER_CASE >= 3 * 1500 and WRITER_TOKENS_OUT_PER_CASE >= 3 * 1000
    # 100 cases: 1.2M tokens in at $2.50/M plus 0.6M out at $10/M.
    assert writer_cost_bound(paid_writer, 100) == Decimal("9.00")


def test_a_researcher_is_offered_only_the_template_writer(client, researcher, paid_writer):
    client.force_login(researcher)
    body = client.get(reverse("case_set_list")).content.decode()
    assert 'value="template"' in body and "gpt-writer" not in body
    assert 'name="max_spend"' not in body
    assert "only admins" in body


def test_a_researcher_cannot_generate_with_a_paid_model(
    client, researcher, paid_writer, case_set_jobs_sent, django_capture_on_commit_callbacks
):
    client.force_login(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        response = generate(client, writer="gpt-writer", count=2000, max_spend="1000000")
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    assert not CaseSetJob.objects.exists() and case_set_jobs_sent == []


def test_a_researcher_still_generates_with_the_template_writer(
    client, researcher, paid_writer, case_set_jobs_sent, django_capture_on_commit_callbacks
):
    client.force_login(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        response = generate(client, count=2000)
    assert response.status_code == 302
    job = CaseSetJob.objects.get()
    assert (job.writer, job.count) == ("template", 2000) and case_set_jobs_sent == [job.pk]


def test_an_admin_sees_the_model_writers_and_the_spend_limit(client, admin_user, paid_writer):
    client.force_login(admin_user)
    body = client.get(reverse("case_set_list")).content.decode()
    assert 'value="gpt-writer"' in body and 'name="max_spend"' in body
    assert f"at most {MODEL_WRITER_MAX_COUNT} cases" in body


def test_a_model_writer_needs_a_spend_limit(client, admin_user, paid_writer, case_set_jobs_sent):
    client.force_login(admin_user)
    response = generate(client, writer="gpt-writer")
    assert "Set a spend limit" in response.content.decode()
    assert not CaseSetJob.objects.exists()


def test_a_model_writer_writes_a_bounded_number_of_cases(
    client, admin_user, paid_writer, case_set_jobs_sent
):
    client.force_login(admin_user)
    response = generate(
        client, writer="gpt-writer", count=MODEL_WRITER_MAX_COUNT + 1, max_spend="100000"
    )
    assert f"at most {MODEL_WRITER_MAX_COUNT} cases per set" in response.content.decode()
    assert not CaseSetJob.objects.exists()


def test_a_limit_below_the_worst_case_refuses_the_job(
    client, admin_user, paid_writer, case_set_jobs_sent
):
    client.force_login(admin_user)
    response = generate(client, writer="gpt-writer", count=100, max_spend="8.99")
    assert "could cost up to $9.00" in response.content.decode()
    assert not CaseSetJob.objects.exists() and case_set_jobs_sent == []


def test_a_limit_that_covers_the_worst_case_starts_the_job(
    client, admin_user, paid_writer, case_set_jobs_sent, django_capture_on_commit_callbacks
):
    client.force_login(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        response = generate(client, writer="gpt-writer", count=100, max_spend="9.00")
    assert response.status_code == 302
    job = CaseSetJob.objects.get()
    assert (job.writer, job.count, job.created_by) == ("gpt-writer", 100, admin_user)
    assert case_set_jobs_sent == [job.pk]
    page = client.get(reverse("case_set_list")).content.decode()
    assert "with gpt-writer (at most about $9.00)" in page


def test_an_admin_generates_with_the_template_writer_without_a_limit(
    client, admin_user, paid_writer, case_set_jobs_sent
):
    client.force_login(admin_user)
    assert generate(client, count=500).status_code == 302
    assert CaseSetJob.objects.get().writer == "template"
