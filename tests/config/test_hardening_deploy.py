"""Production settings, each in a fresh process with production-like environment variables:
`check --deploy` is clean on SQLite and PostgreSQL, X-Forwarded-Proto is believed only
behind a named proxy, and mail goes where the environment says (the console otherwise)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.services import IN_CI, _reachable

ROOT = Path(__file__).resolve().parents[2]
POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/patientagentbench"
SETTINGS_VARIABLES = (
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "DATABASE_URL",
    "PAB_BEHIND_PROXY",
    "PAB_PROXY_COUNT",
    "PAB_TRUSTED_PROXIES",
    "CELERY_BROKER_URL",
    "SECURE_SSL_REDIRECT",
    "EMAIL_URL",
    "EMAIL_BACKEND",
    "EMAIL_HOST",
    "EMAIL_PORT",
    "EMAIL_HOST_USER",
    "EMAIL_HOST_PASSWORD",
    "EMAIL_USE_TLS",
    "EMAIL_USE_SSL",
    "DJANGO_ALLOW_ASYNC_UNSAFE",  # set for Playwright in tests only
    "DJANGO_SETTINGS_MODULE",  # pytest's is tests.settings; manage.py defaults to the project's
)


def production_env(tmp_path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARIABLES}
    return env | {
        "DEBUG": "0",
        "SECRET_KEY": "k3y-" + "production-like-secret-value-" * 3,
        "ALLOWED_HOSTS": "pab.example.org",
        "PAB_VAR_DIR": str(tmp_path),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        **extra,
    }


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def settings_in(env: dict[str, str], *names: str) -> dict:
    """The settings module evaluated afresh under `env`, in this process (a new process per
    environment would cost seconds each); nothing is configured with it."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        spec = importlib.util.find_spec("config.settings")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return {name: getattr(module, name, None) for name in names}


def postgres_url() -> str:
    if _reachable(POSTGRES_URL, 5432):
        return POSTGRES_URL
    if IN_CI:
        pytest.fail(f"CI needs PostgreSQL at {POSTGRES_URL}")
    pytest.skip(f"PostgreSQL at {POSTGRES_URL} is unreachable")


@pytest.mark.slow
@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_check_deploy_passes_at_warning_level(tmp_path, database):
    extra = {"DATABASE_URL": postgres_url()} if database == "postgresql" else {}
    env = production_env(tmp_path, **extra)
    result = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_deploy_settings_are_on(tmp_path):
    found = settings_in(
        production_env(tmp_path),
        "SECURE_SSL_REDIRECT",
        "SESSION_COOKIE_SECURE",
        "CSRF_COOKIE_SECURE",
        "SECURE_HSTS_SECONDS",
        "SECURE_PROXY_SSL_HEADER",
        "SECURE_CSP",
    )
    assert found["SECURE_SSL_REDIRECT"] and found["SESSION_COOKIE_SECURE"]
    assert found["CSRF_COOKIE_SECURE"] and found["SECURE_HSTS_SECONDS"] >= 31536000
    assert found["SECURE_PROXY_SSL_HEADER"] is None  # no proxy named
    assert found["SECURE_CSP"]["script-src"] == ["'self'"]


def test_the_proxy_header_is_trusted_only_behind_a_named_proxy(tmp_path):
    names = ("SECURE_PROXY_SSL_HEADER", "CLIENT_ADDRESS_PROXIES", "AXES_CLIENT_IP_CALLABLE")
    direct = settings_in(production_env(tmp_path), *names)
    assert direct["SECURE_PROXY_SSL_HEADER"] is None and direct["CLIENT_ADDRESS_PROXIES"] is None
    behind = settings_in(production_env(tmp_path, PAB_BEHIND_PROXY="1"), *names)
    assert behind["SECURE_PROXY_SSL_HEADER"] == ("HTTP_X_FORWARDED_PROTO", "https")
    assert behind["CLIENT_ADDRESS_PROXIES"].count == 1
    assert behind["AXES_CLIENT_IP_CALLABLE"] == direct["AXES_CLIENT_IP_CALLABLE"]
    listed = settings_in(
        production_env(tmp_path, PAB_BEHIND_PROXY="1", PAB_TRUSTED_PROXIES="10.0.0.0/8, ::1"),
        "CLIENT_ADDRESS_PROXIES",
    )["CLIENT_ADDRESS_PROXIES"]
    assert [str(n) for n in listed.networks] == ["10.0.0.0/8", "::1/128"]


def test_a_malformed_proxy_list_is_a_clear_error(tmp_path):
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured, match="PAB_TRUSTED_PROXIES"):
        settings_in(
            production_env(tmp_path, PAB_BEHIND_PROXY="1", PAB_TRUSTED_PROXIES="10.0.0.0/99"),
            "DEBUG",
        )


def test_debug_is_off_unless_asked_for(tmp_path):
    env = {k: v for k, v in production_env(tmp_path).items() if k != "DEBUG"}
    assert settings_in(env, "DEBUG") == {"DEBUG": False}
    assert settings_in(env | {"DEBUG": "true"}, "DEBUG") == {"DEBUG": True}


def test_set_but_empty_urls_mean_the_defaults(tmp_path):
    found = settings_in(
        production_env(tmp_path, DATABASE_URL="", CELERY_BROKER_URL=""),
        "DATABASES",
        "CELERY_BROKER_URL",
    )
    assert found["DATABASES"]["default"]["ENGINE"] == "django.db.backends.sqlite3"
    assert found["CELERY_BROKER_URL"].startswith("filesystem://")


REQUEST_AS_A_CLIENT = """
import django, json
django.setup()
from django.test import Client
client = Client(HTTP_HOST="pab.example.org")
answers = {}
for name, headers in [("plain", {}), ("forwarded_https", {"HTTP_X_FORWARDED_PROTO": "https"})]:
    response = client.get("/accounts/login/", **headers)
    answers[name] = [response.status_code, response.get("Location", "")]
print(json.dumps(answers))
"""


def answers(env: dict[str, str]) -> dict:
    env = env | {"DJANGO_SETTINGS_MODULE": "config.settings"}
    result = run(["-c", REQUEST_AS_A_CLIENT], env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_without_a_proxy_a_client_cannot_claim_https(tmp_path):
    # Straight to gunicorn: X-Forwarded-Proto is anyone's to send, so it changes nothing.
    found = answers(production_env(tmp_path))
    assert found["plain"] == [301, "https://pab.example.org/accounts/login/"]
    assert found["forwarded_https"] == [301, "https://pab.example.org/accounts/login/"]


@pytest.mark.slow
def test_behind_a_proxy_its_https_header_is_believed(tmp_path):
    found = answers(production_env(tmp_path, PAB_BEHIND_PROXY="1"))
    assert found["forwarded_https"][0] == 200  # the proxy says the client used HTTPS
    assert found["plain"] == [301, "https://pab.example.org/accounts/login/"]


MAIL = ("EMAIL_BACKEND", "EMAIL_HOST", "EMAIL_PORT", "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD")
CONSOLE = "config.mail.ConsoleBackend"
SMTP = "django.core.mail.backends.smtp.EmailBackend"


@pytest.mark.parametrize("debug", ["0", "1"])
def test_mail_goes_to_the_console_unless_the_environment_names_a_server(tmp_path, debug):
    found = settings_in(production_env(tmp_path, DEBUG=debug), *MAIL)
    assert found["EMAIL_BACKEND"] == CONSOLE  # never SMTP on localhost by accident


def test_email_url_names_an_smtp_server(tmp_path):
    env = production_env(tmp_path, EMAIL_URL="smtp+tls://mailer:p%40ss%3Aword@mail.example.org")
    found = settings_in(env, *MAIL, "EMAIL_USE_TLS", "EMAIL_USE_SSL")
    assert found == {
        "EMAIL_BACKEND": SMTP,
        "EMAIL_HOST": "mail.example.org",
        "EMAIL_PORT": 587,
        "EMAIL_HOST_USER": "mailer",
        "EMAIL_HOST_PASSWORD": "p@ss:word",
        "EMAIL_USE_TLS": True,
        "EMAIL_USE_SSL": False,
    }
    ssl = settings_in(production_env(tmp_path, EMAIL_URL="smtps://mail.example.org"), *MAIL)
    assert (ssl["EMAIL_BACKEND"], ssl["EMAIL_PORT"]) == (SMTP, 465)
    dummy = settings_in(production_env(tmp_path, EMAIL_URL="dummy://"), "EMAIL_BACKEND")
    assert dummy["EMAIL_BACKEND"].endswith("dummy.EmailBackend")


def test_the_older_email_variables_still_switch_smtp_on(tmp_path):
    env = production_env(tmp_path, EMAIL_HOST="smtp.example.org", EMAIL_PORT="2525")
    found = settings_in(env, *MAIL)
    assert (found["EMAIL_BACKEND"], found["EMAIL_HOST"], found["EMAIL_PORT"]) == (
        SMTP,
        "smtp.example.org",
        2525,
    )
    override = settings_in(
        production_env(tmp_path, EMAIL_HOST="smtp.example.org", EMAIL_BACKEND=CONSOLE), *MAIL
    )
    assert override["EMAIL_BACKEND"] == CONSOLE


@pytest.mark.slow
def test_an_unknown_email_url_is_a_clear_error(tmp_path):
    env = production_env(tmp_path, EMAIL_URL="pigeon://coop")
    result = run(["manage.py", "check"], env)
    assert result.returncode != 0 and "EMAIL_URL: unknown scheme 'pigeon'" in result.stderr
