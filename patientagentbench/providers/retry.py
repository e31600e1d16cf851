"""Retry transient provider failures: exponential backoff, full jitter, Retry-After honoured."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from .types import TransientProviderError


def call_with_retries[T](
    fn: Callable[[], T],
    *,
    max_attempts: int = 5,
    base_delay: float = 1.0,
    max_delay: float = 60.0,
    max_retry_after: float = 600.0,
    sleep: Callable[[float], None] = time.sleep,
    rng: Callable[[], float] = random.random,
) -> T:
    """Call `fn` until it succeeds or `max_attempts` calls have failed transiently.

    Permanent ProviderErrors propagate at once. A Retry-After longer than `max_retry_after`
    is not slept through: the error is re-raised so the job can be rescheduled instead of
    holding a worker.
    """
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    for attempt in range(1, max_attempts + 1):
        try:
            return fn()
        except TransientProviderError as error:
            if attempt == max_attempts or _asks_too_long(error, max_retry_after):
                raise
            sleep(backoff_delay(attempt, error.retry_after, base_delay, max_delay, rng))
    raise AssertionError("unreachable")  # the loop returns or raises


def backoff_delay(
    attempt: int,
    retry_after: float | None,
    base_delay: float,
    max_delay: float,
    rng: Callable[[], float],
) -> float:
    """Full jitter (uniform in [0, base·2^(attempt-1)], capped), never below Retry-After."""
    ceiling = min(max_delay, base_delay * 2 ** (attempt - 1))
    jittered = rng() * ceiling
    if retry_after is None:
        return jittered
    return max(jittered, retry_after)


def _asks_too_long(error: TransientProviderError, max_retry_after: float) -> bool:
    return error.retry_after is not None and error.retry_after > max_retry_after
