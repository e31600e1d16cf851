"""Retry transient provider failures: exponential backoff, full jitter, Retry-After honoured.

Rate limiting (HTTP 429) is waited out for up to `rate_limit_patience` seconds rather than a
number of attempts: a provider that answers 429 for a minute slows a run down, it does not
fail its traces. Other transient failures get `max_attempts`.
"""

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
    rate_limit_patience: float = 0.0,
    sleep: Callable[[float], None] = time.sleep,
    rng: Callable[[], float] = random.random,
    clock: Callable[[], float] = time.monotonic,
    on_retry: Callable[[TransientProviderError, int], None] | None = None,
) -> T:
    """Call `fn` until it succeeds, `max_attempts` calls have failed transiently, or (for
    429s, when `rate_limit_patience` > 0) the provider has been rate-limiting for that long.

    Permanent ProviderErrors propagate at once. A Retry-After longer than `max_retry_after`
    is not slept through: the error is re-raised so the job can be rescheduled instead of
    holding a worker. `on_retry(error, attempt)` hears of each failure that is retried.
    """
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    failures, attempt, limited_since = 0, 0, None
    while True:
        attempt += 1
        try:
            return fn()
        except TransientProviderError as error:
            if _asks_too_long(error, max_retry_after):
                raise
            if error.status == 429 and rate_limit_patience > 0:
                limited_since = clock() if limited_since is None else limited_since
                if clock() - limited_since >= rate_limit_patience:
                    raise
            else:
                failures += 1
                if failures >= max_attempts:
                    raise
            if on_retry is not None:
                on_retry(error, attempt)
            sleep(backoff_delay(attempt, error.retry_after, base_delay, max_delay, rng))


def backoff_delay(
    attempt: int,
    retry_after: float | None,
    base_delay: float,
    max_delay: float,
    rng: Callable[[], float],
) -> float:
    """Full jitter (uniform in [0, base·2^(attempt-1)], capped), never below Retry-After."""
    ceiling = min(max_delay, base_delay * 2 ** min(attempt - 1, 30))
    jittered = rng() * ceiling
    if retry_after is None:
        return jittered
    return max(jittered, retry_after)


def _asks_too_long(error: TransientProviderError, max_retry_after: float) -> bool:
    return error.retry_after is not None and error.retry_after > max_retry_after
