"""What the annotation tests share."""

import pytest
from django.core.cache import cache


@pytest.fixture
def fresh_cache():
    """An empty shared cache: the dashboards' entries are keyed by the stamp of the rows they
    read, and rows rolled back after one test would otherwise leave it answers (and the
    latest-computed pointer) for rows that no longer exist."""
    cache.clear()
