"""Database connections in workers: a prefork worker leaves the connection pool off, since
its children would inherit it and end the parent's connections when they close it."""

from types import SimpleNamespace

import pytest
from django.db import connection

from patientagentbench.runs import workers

PREFORK = "celery.concurrency.prefork:TaskPool"
THREADS = "celery.concurrency.thread:TaskPool"


@pytest.fixture
def pool_options(monkeypatch):
    options = connection.settings_dict.setdefault("OPTIONS", {})
    monkeypatch.setitem(options, "pool", {"min_size": 1, "max_size": 4})
    return options


def test_a_prefork_worker_connects_without_the_pool(pool_options):
    workers.no_connection_pool_across_fork(SimpleNamespace(pool_cls=PREFORK))

    assert "pool" not in pool_options


def test_a_thread_worker_keeps_the_pool(pool_options):
    workers.no_connection_pool_across_fork(SimpleNamespace(pool_cls=THREADS))

    assert pool_options["pool"] == {"min_size": 1, "max_size": 4}
