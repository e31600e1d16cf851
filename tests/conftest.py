import os
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User
from hypothesis import settings as hypothesis_settings

from patientagentbench.models import ModelConfig
from patientagentbench.roles import ADMIN, CLINICIAN, RESEARCHER
from patientagentbench.suites.install import install_all_suites

# Playwright's sync API runs an event loop in the test thread; Django's ORM calls there are
# still synchronous, so the async-safety guard would be a false alarm in tests.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

PASSWORD = "correct-horse-battery"

# No per-example deadline: speed is measured in benchmarks/, and a loaded CI machine made
# hypothesis fail a property test for taking 305 ms once. Tests that set their own keep it.
hypothesis_settings.register_profile("pab", deadline=None)
hypothesis_settings.load_profile("pab")


def _person(username: str, *roles: str) -> User:
    user = User.objects.create_user(username=username, password=PASSWORD)
    for role in roles:
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


@pytest.fixture
def admin_user(db):
    return _person("ada", ADMIN)


@pytest.fixture
def researcher(db):
    return _person("rita", RESEARCHER)


@pytest.fixture
def clinician(db):
    return _person("cleo", CLINICIAN)


@pytest.fixture
def outsider(db):
    return _person("otto")


@pytest.fixture
def office_suite(db):
    (suite,) = [s for s in install_all_suites() if s.name == "office-19"]
    return suite


@pytest.fixture
def sim_models(db):
    return [
        ModelConfig.objects.create(name=name, provider="simulated", model_id=name)
        for name in ("sim-steady", "sim-jittery")
    ]


# --- the `slow` marker (`pytest -m "not slow"` for a quick loop; `make test` runs them all) ---
# Whole folders and tests using these fixtures start Chromium, a live server or a Celery worker;
# tests that start a process of their own carry @pytest.mark.slow where they are written.
SLOW_FOLDERS = {"browser", "integration"}
SLOW_FIXTURES = {"live_server", "celery_worker_thread"}
TESTS = Path(__file__).resolve().parent


@pytest.fixture
def fresh_rubrics():
    """Rubric caches emptied before and after: a test that imports a team's rubric must not
    leave it cached for the next test (whose database no longer holds it)."""
    from jury.rubrics import STORE
    from ratings.rubric import cached_rubric

    cached_rubric.cache_clear()
    STORE.forget()
    yield
    cached_rubric.cache_clear()
    STORE.forget()


def pytest_collection_modifyitems(config, items):
    for item in items:
        folders = item.path.relative_to(TESTS).parts[:-1] if item.path.is_relative_to(TESTS) else ()
        if (
            SLOW_FOLDERS.intersection(folders[:1])
            or SLOW_FIXTURES & set(getattr(item, "fixturenames", ()))
            or item.get_closest_marker("browser")
        ):
            item.add_marker(pytest.mark.slow)
