"""`memo`: a computed value cached per stamp, computed once across concurrent askers."""

import threading
import time
import uuid

import pytest
from django.core.cache import cache

from patientagentbench.cache import memo


@pytest.fixture
def key():
    return f"test-memo:{uuid.uuid4().hex}"


class Counting:
    def __init__(self, value="v", delay_s=0.0):
        self.calls, self.value, self.delay_s = 0, value, delay_s

    def __call__(self):
        self.calls += 1
        time.sleep(self.delay_s)
        return f"{self.value}{self.calls}"


def test_a_stamp_is_computed_once_and_a_new_stamp_computes_again(key):
    compute = Counting()
    assert memo(key, "s1", compute, timeout=60) == "v1"
    assert memo(key, "s1", compute, timeout=60) == "v1"
    assert memo(key, "s2", compute, timeout=60) == "v2"
    assert compute.calls == 2


def test_concurrent_askers_of_one_stamp_compute_it_once(key):
    compute, answers = Counting(delay_s=0.5), []

    def ask():
        answers.append(memo(key, "s", compute, timeout=60))

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert compute.calls == 1
    assert answers == ["v1"] * 3


def test_a_waiting_asker_takes_the_other_computers_value(key):
    cache.add(f"{key}:computing", "another process", 60)
    compute, answers = Counting(), []
    waiter = threading.Thread(target=lambda: answers.append(memo(key, "s", compute, timeout=60)))
    waiter.start()
    time.sleep(0.3)
    assert not answers  # still waiting for the other process
    cache.set(f"{key}:s", "theirs", 60)
    cache.delete(f"{key}:computing")
    waiter.join(10)
    assert answers == ["theirs"] and compute.calls == 0


def test_a_poll_gets_the_previous_stamp_while_another_computes(key):
    assert memo(key, "old", Counting("old"), timeout=60, previous_while_computing=True) == "old1"
    cache.add(f"{key}:computing", "another request", 60)
    try:
        got = memo(key, "new", Counting("new"), timeout=60, previous_while_computing=True)
    finally:
        cache.delete(f"{key}:computing")
    assert got == "old1"
    assert memo(key, "new", Counting("new"), timeout=60, previous_while_computing=True) == "new1"


def test_a_failed_compute_frees_the_key_and_caches_nothing(key):
    def broken():
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        memo(key, "s", broken, timeout=60)
    assert not cache.has_key(f"{key}:computing")
    assert memo(key, "s", Counting(), timeout=60) == "v1"


def test_an_asker_that_did_not_take_the_lock_leaves_the_others_lock_alone(key):
    cache.add(f"{key}:computing", "another process", 60)
    cache.set(f"{key}:latest", f"{key}:old", 60)
    cache.set(f"{key}:old", "old", 60)
    memo(key, "new", Counting(), timeout=60, previous_while_computing=True)
    assert cache.get(f"{key}:computing") == "another process"
