"""Secrets out of text that is stored or shown: provider error bodies, exception messages.

A server (or a stub) may echo the request's Authorization header in its error body, and an
error is stored on the trace and shown on its page. `redact` replaces anything shaped like a
key or a bearer token with `[redacted]` before that happens. It errs on the side of hiding:
a long token after a word such as "key" or "token" goes even when it was not a secret.

`looks_like_a_key` is the other side: an `api_key_env` setting must name a variable, and a
value shaped like a key is refused before it is ever stored.
"""

from __future__ import annotations

import re

MASK = "[redacted]"

# Characters of a token: base64 (standard and URL-safe), hex, and the separators keys use.
_TOKEN = r"[A-Za-z0-9_\-.~+/=]"

# Well-known key shapes, wherever they appear.
_KNOWN_KEYS = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    r"sk-[A-Za-z0-9_\-]{6,}"  # OpenAI (sk-..., sk-proj-...), Anthropic (sk-ant-...), others
    r"|sk_(?:live|test)_[A-Za-z0-9]{6,}"  # Stripe-style
    r"|(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{10,}"  # GitHub
    r"|xox[abposr]-[A-Za-z0-9\-]{10,}"  # Slack
    r"|hf_[A-Za-z0-9]{10,}"  # Hugging Face
    r"|gsk_[A-Za-z0-9]{10,}"  # Groq
    r"|r8_[A-Za-z0-9]{10,}"  # Replicate
    r"|AIza[A-Za-z0-9_\-]{20,}"  # Google
    r"|AKIA[A-Z0-9]{12,}"  # AWS access key id
    r"|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}(?:\.[A-Za-z0-9_\-]*)?"  # a JWT
    r")"
)

# An HTTP authorization scheme and its credential: "Bearer abc", "Basic dXNlcjpwdw==".
_BEARER = re.compile(r"(?i)(?<![A-Za-z0-9])(bearer\s+)(?!" + re.escape(MASK) + ")(" + _TOKEN + "+)")
_BASIC = re.compile(r"(?i)(?<![A-Za-z0-9])(basic\s+)(" + _TOKEN + "{8,})")

# A word that announces a secret, a separator, then a token of 8 or more characters:
# `api_key=...`, `"x-api-key": "..."`, `Authorization: abc`, `token abc`, `secret is ...`.
_NAMED_SECRET = re.compile(
    r"(?i)((?<![A-Za-z0-9])(?:api[_\-\s]?key|access[_\-\s]?key|secret|password|passwd|token|"
    r"authorization|auth|key|credential)s?[\"']?(?:\s*[:=]\s*|\s+is\s+|\s+)[\"']?)"
    r"(?!" + re.escape(MASK) + r")(" + _TOKEN + r"{8,})"
)

# Long runs of hex (32+) or of base64-looking characters (40+ mixing upper and lower case
# and digits) are keys or digests more often than words; none belongs in an error message.
_LONG_HEX = re.compile(r"(?<![A-Za-z0-9])[0-9a-fA-F]{32,}(?![A-Za-z0-9])")
_LONG_BASE64 = re.compile(r"(?<![A-Za-z0-9_\-+/])[A-Za-z0-9_\-+/]{40,}={0,2}")


def redact(text: str) -> str:
    """`text` with every key- or token-shaped part replaced by `[redacted]`. Idempotent, and
    text with nothing shaped like a secret comes back unchanged."""
    if not text:
        return text
    text = _KNOWN_KEYS.sub(MASK, text)
    text = _BEARER.sub(lambda m: m.group(1) + MASK, text)
    text = _BASIC.sub(_mask_named, text)
    text = _NAMED_SECRET.sub(_mask_named, text)
    text = _LONG_HEX.sub(MASK, text)
    return _LONG_BASE64.sub(_mask_long, text)


def _mask_named(match: re.Match) -> str:
    # "key: value_error" and "token limit" are words, not secrets.
    return match.group(1) + MASK if _secret_like(match.group(2)) else match.group(0)


def _mask_long(match: re.Match) -> str:
    token = match.group(0)
    random_looking = (
        any(c.isupper() for c in token)
        and any(c.islower() for c in token)
        and any(c.isdigit() for c in token)
    )
    return MASK if random_looking else token


def _secret_like(token: str) -> bool:
    """A secret has letters and a digit, or is long, or mixes cases as random strings do."""
    if not any(c.isalpha() for c in token):
        return False
    has_digit = any(c.isdigit() for c in token)
    mixed_case = any(c.islower() for c in token) and any(c.isupper() for c in token)
    return has_digit or len(token) >= 24 or (mixed_case and len(token) >= 12)


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def is_env_var_name(value: str) -> bool:
    return bool(_ENV_NAME.match(value))


def looks_like_a_key(value: str) -> bool:
    """True for a value that is a key rather than the name of the variable holding one."""
    value = value.strip()
    if not value:
        return False
    if redact(value) != value:
        return True
    if "_" in value or len(value) < 20:
        return False
    # Names are words; a long run without separators that mixes digits and letters is not.
    has_digit = any(c.isdigit() for c in value)
    has_letter = any(c.isalpha() for c in value)
    return has_digit and has_letter
