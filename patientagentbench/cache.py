"""The shared cache on Redis, forgiving when Redis is away.

Everything cached here (analyses, dashboards, jury agreement) can be computed again, so a
Redis restart or failover makes pages slower for a moment, never a 500: a read misses, a
write is dropped, and the outage is logged once per minute.
"""

from __future__ import annotations

import logging
import time

import redis
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache

log = logging.getLogger(__name__)

_OUTAGE = (redis.ConnectionError, redis.TimeoutError)
_LOG_EVERY_S = 60.0


class ForgivingRedisCache(RedisCache):
    _last_logged = 0.0

    def _away(self, exc: Exception) -> None:
        now = time.monotonic()
        if now - ForgivingRedisCache._last_logged > _LOG_EVERY_S:
            ForgivingRedisCache._last_logged = now
            log.warning("cache: Redis is not answering (%s); computing without it", exc)

    def get(self, key, default=None, version=None):
        try:
            return super().get(key, default, version)
        except _OUTAGE as exc:
            self._away(exc)
            return default

    def get_many(self, keys, version=None):
        try:
            return super().get_many(keys, version)
        except _OUTAGE as exc:
            self._away(exc)
            return {}

    def has_key(self, key, version=None):
        try:
            return super().has_key(key, version)
        except _OUTAGE as exc:
            self._away(exc)
            return False

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        try:
            return super().add(key, value, timeout, version)
        except _OUTAGE as exc:
            # As if added: the caller (a compute lock) goes on and computes itself.
            self._away(exc)
            return True

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        try:
            super().set(key, value, timeout, version)
        except _OUTAGE as exc:
            self._away(exc)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        try:
            return super().set_many(data, timeout, version)
        except _OUTAGE as exc:
            self._away(exc)
            return list(data)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        try:
            return super().touch(key, timeout, version)
        except _OUTAGE as exc:
            self._away(exc)
            return False

    def delete(self, key, version=None):
        try:
            return super().delete(key, version)
        except _OUTAGE as exc:
            self._away(exc)
            return False

    def delete_many(self, keys, version=None):
        try:
            return super().delete_many(keys, version)
        except _OUTAGE as exc:
            self._away(exc)
