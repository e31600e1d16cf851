"""Map SDK exceptions onto the neutral ProviderError / TransientProviderError.

Both SDKs (openai, anthropic) come from the same generator, so they share the exception
tree (APIStatusError, APITimeoutError, APIConnectionError, APIError); one mapping serves both.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Callable, Mapping
from types import ModuleType

from .redaction import redact
from .types import ProviderError, TransientProviderError

# 408 is a server-side request timeout: as worth retrying as a client-side one.
TRANSIENT_STATUSES = frozenset({408, 429})
MAX_ERROR_DETAIL_CHARS = 500


def is_transient_status(status: int) -> bool:
    return status in TRANSIENT_STATUSES or status >= 500


def parse_retry_after(
    headers: Mapping[str, str] | None, now: Callable[[], float] = time.time
) -> float | None:
    """Seconds to wait from `retry-after-ms`, or `retry-after` as seconds or an HTTP date."""
    if not headers:
        return None
    lowered = {key.lower(): value for key, value in headers.items()}
    milliseconds = _as_float(lowered.get("retry-after-ms"))
    if milliseconds is not None:
        return max(milliseconds / 1000, 0.0)
    value = lowered.get("retry-after")
    seconds = _as_float(value)
    if seconds is not None:
        return max(seconds, 0.0)
    return _seconds_until_http_date(value, now)


def _as_float(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _seconds_until_http_date(value: str | None, now: Callable[[], float]) -> float | None:
    if not value:
        return None
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(moment.timestamp() - now(), 0.0)


def translate_sdk_error(exc: Exception, sdk: ModuleType, provider_name: str) -> ProviderError:
    """The neutral error for an exception raised by `sdk` (the openai or anthropic module)."""
    if isinstance(exc, sdk.APITimeoutError):
        return TransientProviderError(f"{provider_name}: request timed out", timed_out=True)
    if isinstance(exc, sdk.APIConnectionError):
        return TransientProviderError(f"{provider_name}: connection failed ({_detail(exc)})")
    if isinstance(exc, sdk.APIStatusError):
        return _status_error(exc, provider_name)
    return ProviderError(f"{provider_name}: {type(exc).__name__}: {_detail(exc)}")


def _status_error(exc, provider_name: str) -> ProviderError:
    status = exc.status_code
    message = f"{provider_name}: HTTP {status}: {_detail(exc)}"
    if is_transient_status(status):
        retry_after = parse_retry_after(exc.response.headers)
        return TransientProviderError(message, retry_after=retry_after, status=status)
    return ProviderError(message)


def _detail(exc: Exception) -> str:
    # Bodies can be long, and a server may echo the request's headers (the key with them)
    # back in its error: anything shaped like a key goes before the text is kept anywhere.
    text = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return redact(text)[:MAX_ERROR_DETAIL_CHARS]
