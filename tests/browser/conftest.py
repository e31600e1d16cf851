"""Playwright driving Debian's Chromium against the live server, with a Celery worker thread."""

import os
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from config.celery import app as celery_app
from tests.conftest import PASSWORD
from tests.patience import patient
from tests.services import IN_CI

# Playwright's own wait for an `expect`, stretched like every other deadline on a busy machine.
expect.set_options(timeout=patient(5_000))

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="session")
def browser():
    executable = shutil.which("chromium")
    if executable is None:
        message = "Debian's chromium is not installed (apt install chromium)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(patient(20_000))
    yield page
    context.close()


@pytest.fixture
def celery_worker_thread(transactional_db):
    """A real Celery worker consuming the app's broker, in a thread so it shares the test DB."""
    from celery.contrib.testing.worker import start_worker

    with start_worker(
        celery_app, pool="threads", concurrency=2, perform_ping_check=False, shutdown_timeout=30
    ):
        yield


def screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def log_in(page, live_server, username: str) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_load_state()


__all__ = ["log_in", "screenshot", "os"]
