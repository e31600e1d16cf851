"""Typed helpers for settings read from the environment."""

import os
import re


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_suffix(name: str) -> str:
    """A name as the end of a variable's name: "qwen2.5-7b" → "QWEN2_5_7B"."""
    return re.sub(r"[^A-Z0-9]+", "_", name.upper()).strip("_")


def env_floats(prefix: str) -> dict[str, float]:
    """Every `<prefix><SUFFIX>=number` set, by suffix (per-model settings)."""
    return {
        key[len(prefix) :]: float(value)
        for key, value in os.environ.items()
        if key.startswith(prefix) and len(key) > len(prefix) and value.strip()
    }
