"""Every view, every persona: who may see what (DESIGN §11)."""

import pytest
from django.urls import reverse

from patientagentbench.models import ImportJob
from patientagentbench.runs.launch import launch_run

pytestmark = pytest.mark.django_db

# name -> (args, method, roles allowed)
ADMIN_ONLY = {"admin"}
STAFF = {"admin", "researcher"}
EVERYONE = {"admin", "researcher", "clinician", "outsider_denied"}


@pytest.fixture
def one_trace_run(office_suite, sim_models):
    run = launch_run(
        suite=office_suite,
        models=sim_models[:1],
        tasks=list(office_suite.tasks.all()[:1]),
        enqueue=False,
    )
    job = ImportJob.objects.create(key="import:matrix", sha256="a" * 64, file_name="t.jsonl")
    return {"run": run, "trace": run.traces.first(), "model": sim_models[0], "import": job}


def matrix(one_trace_run):
    run, trace, model = one_trace_run["run"], one_trace_run["trace"], one_trace_run["model"]
    return [
        ("model_list", (), "get", ADMIN_ONLY),
        ("model_create", (), "get", ADMIN_ONLY),
        ("model_edit", (model.pk,), "get", ADMIN_ONLY),
        ("model_toggle", (model.pk,), "post", ADMIN_ONLY),
        ("run_launch", (), "get", ADMIN_ONLY),
        ("run_preview", (), "get", ADMIN_ONLY),
        ("run_cancel", (run.pk,), "post", ADMIN_ONLY),
        ("run_resume", (run.pk,), "post", ADMIN_ONLY),
        ("run_list", (), "get", STAFF),
        ("run_detail", (run.pk,), "get", STAFF),
        ("trace_detail", (trace.pk,), "get", STAFF),
        ("run_report", (run.pk,), "get", STAFF),
        ("run_set_reference", (run.pk,), "post", STAFF),
        ("report_statistics_json", (run.pk,), "get", STAFF),
        ("import_upload", (), "get", STAFF),
        ("import_status", (one_trace_run["import"].pk,), "get", STAFF),
        ("import_confirm", (one_trace_run["import"].pk,), "post", STAFF),
    ]


@pytest.mark.parametrize("persona", ["admin", "researcher", "clinician", "outsider", "anonymous"])
def test_permission_matrix(
    client, one_trace_run, persona, admin_user, researcher, clinician, outsider
):
    users = {
        "admin": admin_user,
        "researcher": researcher,
        "clinician": clinician,
        "outsider": outsider,
    }
    if persona in users:
        client.force_login(users[persona])
    for name, args, method, allowed in matrix(one_trace_run):
        response = getattr(client, method)(reverse(name, args=args))
        if persona == "anonymous":
            assert response.status_code == 302 and "/accounts/login/" in response["Location"], name
        elif persona in allowed:
            assert response.status_code in (200, 302), (name, persona, response.status_code)
        else:
            assert response.status_code == 403, (name, persona, response.status_code)


def test_home_sends_each_role_to_its_page(client, admin_user, clinician, outsider):
    client.force_login(admin_user)
    assert client.get("/")["Location"] == reverse("run_list")
    client.force_login(clinician)
    assert client.get("/")["Location"] == reverse("review_home")
    page = client.get("/", follow=True)
    assert page.status_code == 200 and b"My reviews" in page.content
    client.force_login(outsider)
    assert client.get("/").status_code == 403


def test_clinician_pages_name_no_model_or_run(client, one_trace_run, clinician):
    client.force_login(clinician)
    body = client.get("/").content.decode()
    for secret in ("sim-steady", "Runs", "Models", "Launch", f"/runs/{one_trace_run['run'].pk}"):
        assert secret not in body


def test_login_page_is_at_accounts_login(client):
    assert client.get("/accounts/login/").status_code == 200
