"""Friendly 403/404/500 pages inside the site's layout (a CSRF failure too); a 403 logged as
one line; resuming a run that does not exist is a 404; /favicon.ico is not one."""

import logging

import pytest
from django.contrib.staticfiles import finders
from django.http import HttpResponse
from django.test import Client
from django.urls import include, path, reverse

pytestmark = pytest.mark.django_db


def _boom(request):
    raise RuntimeError("a bug in a view")


def _fine(request):
    return HttpResponse("fine")


# A URLconf for the 500 test: the project's URLs plus a view that fails.
urlpatterns = [
    path("test-boom/", _boom),
    path("test-fine/", _fine),
    path("", include("config.urls")),
]


def in_layout(body: str) -> bool:
    return 'class="brand"' in body and "</main>" in body and "css/app.css" in body


def test_403_is_a_page_in_the_layout(client, clinician):
    client.force_login(clinician)
    response = client.get(reverse("run_list"))
    body = response.content.decode()
    assert response.status_code == 403
    assert in_layout(body) and 'data-testid="error-403"' in body
    assert "<title>Not allowed · PatientAgentBench</title>" in body
    assert "ask an admin" in body and clinician.username in body
    assert "My reviews" in body  # the clinician's own navigation is still there


def test_a_csrf_failure_is_the_site_403_page_saying_how_to_recover(clinician):
    client = Client(enforce_csrf_checks=True)
    response = client.post(reverse("login"), {"username": "cleo", "password": "x"})
    body = response.content.decode()
    assert response.status_code == 403
    assert in_layout(body) and 'data-testid="error-403"' in body
    assert "This form expired; reload the page and try again." in body
    assert "ask an admin" not in body  # not a missing role
    client.force_login(clinician)
    response = client.post(reverse("logout"))
    assert response.status_code == 403 and "This form expired" in response.content.decode()


def test_favicon_ico_redirects_permanently_to_the_static_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"] == "/static/favicon.svg"
    assert finders.find("favicon.svg") is not None


def test_403_is_logged_in_one_line_without_a_traceback(client, clinician, caplog):
    client.force_login(clinician)
    with caplog.at_level(logging.WARNING, logger="django.request"):
        assert client.get(reverse("run_list")).status_code == 403
    records = [r for r in caplog.records if r.name == "django.request"]
    assert len(records) == 1
    (record,) = records
    assert record.levelno == logging.WARNING and record.exc_info is None
    line = record.getMessage()
    assert line == f"Forbidden (Permission denied): {reverse('run_list')} (user cleo)"
    assert "Traceback" not in caplog.text and "PermissionDenied" not in caplog.text


def test_other_warnings_keep_their_shape(client, researcher, caplog):
    client.force_login(researcher)
    with caplog.at_level(logging.WARNING, logger="django.request"):
        assert client.get("/no-such-page/").status_code == 404
    (record,) = [r for r in caplog.records if r.name == "django.request"]
    assert record.getMessage() == "Not Found: /no-such-page/"


def test_404_is_a_page_in_the_layout(client, researcher):
    client.force_login(researcher)
    response = client.get("/no-such-page/")
    body = response.content.decode()
    assert response.status_code == 404
    assert in_layout(body) and 'data-testid="error-404"' in body
    assert "Page not found" in body and "/no-such-page/" in body
    assert "Runs" in body  # the researcher's navigation


def test_404_for_a_missing_object_too(client, researcher):
    client.force_login(researcher)
    response = client.get(reverse("run_detail", args=[987654]))
    assert response.status_code == 404 and 'data-testid="error-404"' in response.content.decode()


def test_500_is_a_page_in_the_layout(client, researcher, settings):
    settings.ROOT_URLCONF = __name__
    client.raise_request_exception = False
    client.force_login(researcher)
    assert client.get("/test-fine/").status_code == 200
    response = client.get("/test-boom/")
    body = response.content.decode()
    assert response.status_code == 500
    assert in_layout(body) and 'data-testid="error-500"' in body
    assert "Something went wrong" in body and "a bug in a view" not in body


def test_resuming_a_missing_run_is_a_404_not_a_500(client, admin_user):
    client.force_login(admin_user)
    client.raise_request_exception = False
    response = client.post(reverse("run_resume", args=[987654]))
    assert response.status_code == 404
    assert 'data-testid="error-404"' in response.content.decode()
