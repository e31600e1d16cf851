"""The shared cache on Redis, forgiving when Redis is away, and `memo`, the one way the app
caches a computed value.

Everything cached here (analyses, dashboards, jury agreement) can be computed again, so a
Redis restart or failover makes pages slower for a moment, never a 500: a read misses, a
write is dropped, and the outage is logged once per minute.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable

import redis
from django.core.cache.backends.redis import RedisCache

log = logging.getLogger(__name__)

_OUTAGE = (redis.ConnectionError, redis.TimeoutError)
_LOG_EVERY_S = 60.0
_last_logged = 0.0


def _away(exc: Exception) -> None:
    global _last_logged
    now = time.monotonic()
    if now - _last_logged > _LOG_EVERY_S:
        _last_logged = now
        log.warning("cache: Redis is not answering (%s); computing without it", exc)


def _or_else(method, fallback):
    """`method`, answering `fallback(*args)` instead when Redis is away."""

    @functools.wraps(method)
    def forgiving(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except _OUTAGE as exc:
            _away(exc)
            return fallback(*args, **kwargs)

    return forgiving


def _nothing(*args, **kwargs):
    return None


class ForgivingRedisCache(RedisCache):
    get = _or_else(RedisCache.get, lambda key, default=None, version=None: default)
    get_many = _or_else(RedisCache.get_many, lambda *args, **kwargs: {})
    has_key = _or_else(RedisCache.has_key, lambda *args, **kwargs: False)
    # As if added: the caller (a compute lock) goes on and computes itself.
    add = _or_else(RedisCache.add, lambda *args, **kwargs: True)
    set = _or_else(RedisCache.set, _nothing)
    set_many = _or_else(RedisCache.set_many, lambda data, *args, **kwargs: list(data))
    touch = _or_else(RedisCache.touch, lambda *args, **kwargs: False)
    delete = _or_else(RedisCache.delete, lambda *args, **kwargs: False)
    delete_many = _or_else(RedisCache.delete_many, _nothing)


# --- memo: the one way the app caches a computed value ----------------------------------------

_WAIT_POLL_S = 0.1
# The embedded default's file cache checks, then writes, so two threads can both "add" one
# key; serialising the add inside a process leaves only the cross-process race (a duplicate
# compute, never a wrong value). Redis's SET NX needs none of this.
_ADD_LOCK = threading.Lock()


def memo[T](
    key: str,
    stamp: str,
    compute: Callable[[], T],
    *,
    timeout: float,
    lock_s: float = 60.0,
    previous_while_computing: bool = False,
) -> T:
    """`compute()` for `key` as of `stamp` (whatever changes when its inputs change), computed
    once across processes: while one process computes, the others wait for its answer rather
    than compute the same thing alongside it on a small machine. A page that polls can instead
    take the previous stamp's value (`previous_while_computing`); it must then show the stamp it
    got, so that its next poll asks again. A computer that crashed frees the key after `lock_s`.
    `None` is never cached: compute a value."""
    from django.core.cache import cache

    entry, lock, latest = f"{key}:{stamp}", f"{key}:computing", f"{key}:latest"
    found = cache.get(entry)
    if found is not None:
        return found
    with _ADD_LOCK:
        locked = cache.add(lock, stamp, lock_s)
    if not locked:
        if previous_while_computing:
            previous_entry = cache.get(latest)
            previous = cache.get(previous_entry) if previous_entry else None
            if previous is not None:
                return previous
        else:
            found = _wait_for(cache, entry, lock, lock_s)
            if found is not None:
                return found
    try:
        value = compute()
        cache.set(entry, value, timeout)
        cache.set(latest, entry, timeout)
    finally:
        if locked:
            cache.delete(lock)
    return value


def _wait_for(cache, entry: str, lock: str, lock_s: float):
    """The value another process is computing, once it lands; None if it gave up (its lock
    went) or `lock_s` passed, and the caller computes it itself."""
    deadline = time.monotonic() + lock_s
    while time.monotonic() < deadline:
        time.sleep(_WAIT_POLL_S)
        found = cache.get(entry)
        if found is not None or not cache.has_key(lock):
            return found if found is not None else cache.get(entry)
    return None
