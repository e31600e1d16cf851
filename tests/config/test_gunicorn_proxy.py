"""gunicorn believes X-Forwarded-Proto only where the app does (issue 34 #8): by default it
trusts the header from 127.0.0.1 and turns it into the request's scheme, so a client on the
machine (or an undeclared proxy) could claim HTTPS without PAB_BEHIND_PROXY. gunicorn.conf.py
sets `forwarded_allow_ips` from the app's own settings."""

import http.client
import socket
import subprocess
import sys
import time

import pytest

from config.client_address import gunicorn_forwarded_allow_ips
from tests.config.test_hardening_deploy import ROOT, production_env


def test_forwarded_allow_ips_follows_the_apps_proxy_settings():
    assert gunicorn_forwarded_allow_ips({}) == ""  # nobody: the app ignores the header too
    assert gunicorn_forwarded_allow_ips({"PAB_BEHIND_PROXY": "0"}) == ""
    assert gunicorn_forwarded_allow_ips({"PAB_BEHIND_PROXY": "1"}) == "127.0.0.1,::1"
    trusted = {"PAB_BEHIND_PROXY": "1", "PAB_TRUSTED_PROXIES": " 10.0.0.0/8, ::1 "}
    assert gunicorn_forwarded_allow_ips(trusted) == "10.0.0.0/8,::1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def login_page_status(env: dict[str, str]) -> int:
    """gunicorn started as README's Production does (from the project folder), asked for the
    login page over plain HTTP from 127.0.0.1 with `X-Forwarded-Proto: https`."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "-w", "1", "-b", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=90)
                connection.request(
                    "GET",
                    "/accounts/login/",
                    headers={"Host": "pab.example.org", "X-Forwarded-Proto": "https"},
                )
                return connection.getresponse().status
            except ConnectionError:
                assert server.poll() is None, "gunicorn exited"
                assert time.monotonic() < deadline, "gunicorn did not answer within 60 s"
                time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.slow
def test_without_a_proxy_gunicorn_does_not_let_a_local_client_claim_https(tmp_path):
    assert login_page_status(production_env(tmp_path)) == 301  # redirected: not HTTPS


@pytest.mark.slow
def test_behind_a_proxy_gunicorn_and_the_app_believe_it(tmp_path):
    assert login_page_status(production_env(tmp_path, PAB_BEHIND_PROXY="1")) == 200
