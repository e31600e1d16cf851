"""The shared cache on Redis, forgiving when Redis is away.

Everything cached here (analyses, dashboards, jury agreement) can be computed again, so a
Redis restart or failover makes pages slower for a moment, never a 500: a read misses, a
write is dropped, and the outage is logged once per minute.
"""

from __future__ import annotations

import functools
import logging
import time

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
