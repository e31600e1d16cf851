"""The per-provider concurrency limit holds across threads (lock files) and processes (Redis)."""

import threading
import time

import pytest

from patientagentbench.runs import limits
from tests.services import require_services


def _peak_concurrency(limit: int, holders: int = 12) -> int:
    active = peak = 0
    guard = threading.Lock()

    def hold():
        nonlocal active, peak
        with limits.provider_slot("test:endpoint", limit):
            with guard:
                active += 1
                peak = max(peak, active)
            time.sleep(0.05)
            with guard:
                active -= 1

    threads = [threading.Thread(target=hold) for _ in range(holders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return peak


def test_lock_file_slots_cap_concurrency(settings, tmp_path):
    settings.CONCURRENCY_REDIS_URL = ""
    settings.VAR_DIR = tmp_path
    assert _peak_concurrency(3) == 3


def test_zero_means_unlimited(settings, tmp_path):
    settings.CONCURRENCY_REDIS_URL = ""
    settings.VAR_DIR = tmp_path
    assert _peak_concurrency(0, holders=6) == 6


@pytest.mark.services
def test_redis_slots_cap_concurrency_and_are_released(settings):
    _, broker_url = require_services()
    settings.CONCURRENCY_REDIS_URL = broker_url
    limits._redis_client = None
    assert _peak_concurrency(2) == 2
    assert limits.slots_in_use("test:endpoint") == 0


def test_redis_away_is_waited_out_only_for_the_patience_set(settings):
    import redis

    settings.CONCURRENCY_REDIS_URL = f"redis://127.0.0.1:{_closed_port()}/0"
    settings.REDIS_OUTAGE_PATIENCE_S = 0.5
    limits._redis_client = None
    started = time.monotonic()
    try:
        with pytest.raises(redis.ConnectionError), limits.provider_slot("test:away", 2):
            pytest.fail("a slot was granted with no Redis to hold it")
    finally:
        limits._redis_client = None
    # Tried again for the patience, then said so (not at once, not for ever).
    assert 0.3 <= time.monotonic() - started < 5


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
