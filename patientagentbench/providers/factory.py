"""Build a provider from a model config. Keys come from the environment only."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping
from enum import StrEnum

from .types import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    MAX_OUTPUT_TOKENS_CEILING,
    Provider,
    ProviderError,
)

__all__ = [
    "DEFAULT_KEY_ENV",
    "DEFAULT_MAX_OUTPUT_TOKENS",
    "MAX_OUTPUT_TOKENS_CEILING",
    "PROVIDERS",
    "PROVIDER_LABELS",
    "ProviderKind",
    "build_provider",
    "preload_sdks",
    "shared_provider",
]

DEFAULT_KEY_ENV = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
}


class ProviderKind(StrEnum):
    """Every provider the pipeline speaks; model configs, forms and the CLI read this list."""

    OPENAI = "openai"
    ANTHROPIC = "anthropic"
    OPENAI_COMPATIBLE = "openai_compatible"
    SIMULATED = "simulated"


PROVIDER_LABELS = {
    ProviderKind.OPENAI: "OpenAI",
    ProviderKind.ANTHROPIC: "Anthropic",
    ProviderKind.OPENAI_COMPATIBLE: "OpenAI-compatible",
    ProviderKind.SIMULATED: "Simulated (offline)",
}
PROVIDERS = tuple(kind.value for kind in ProviderKind)
# Local servers (vLLM, Ollama, llama.cpp) accept any key, but the SDK refuses an empty one.
# Sent only when the model names no key variable at all.
KEYLESS_PLACEHOLDER = "not-needed"


def build_provider(
    provider: str,
    model_id: str,
    base_url: str = "",
    api_key_env: str = "",
    environ: Mapping[str, str] = os.environ,
    timeout: float = 60.0,
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
) -> Provider:
    """A provider for one model. Every call it makes asks for at most `max_output_tokens`
    (the simulated agent ignores it: it writes short answers by construction)."""
    if provider == "openai":
        from .openai_chat import OpenAIChatProvider

        key = _required_key(provider, api_key_env, environ)
        return OpenAIChatProvider(
            model_id,
            key,
            base_url=base_url or None,
            timeout=timeout,
            max_output_tokens=max_output_tokens,
        )
    if provider == "anthropic":
        from .anthropic_messages import AnthropicProvider

        key = _required_key(provider, api_key_env, environ)
        return AnthropicProvider(
            model_id,
            key,
            base_url=base_url or None,
            timeout=timeout,
            max_output_tokens=max_output_tokens,
        )
    if provider == "openai_compatible":
        return _openai_compatible(
            model_id, base_url, api_key_env, environ, timeout, max_output_tokens
        )
    if provider == "simulated":
        from patientagentbench.simulated.agent import SimulatedAgentProvider

        return SimulatedAgentProvider(model_id)
    raise ProviderError(f"unknown provider {provider!r}; expected one of {', '.join(PROVIDERS)}")


def preload_sdks(providers: Iterable[str]) -> None:
    """Import the SDKs these providers use, and what their clients load on first use: ~0.8 s
    of CPU for OpenAI's, ~1.5 s for Anthropic's. A worker does it before it takes jobs; else
    its first jobs pay it, every thread queued on the import lock behind the first."""
    # An attribute read loads an SDK's lazily imported resources.
    kinds = set(providers)
    if kinds & {ProviderKind.OPENAI, ProviderKind.OPENAI_COMPATIBLE}:
        from .openai_chat import OpenAIChatProvider

        OpenAIChatProvider("preload", KEYLESS_PLACEHOLDER, "http://127.0.0.1/v1")._client.chat  # noqa: B018
    if ProviderKind.ANTHROPIC in kinds:
        from .anthropic_messages import AnthropicProvider

        AnthropicProvider("preload", KEYLESS_PLACEHOLDER)._client.messages  # noqa: B018


def _required_key(provider: str, api_key_env: str, environ: Mapping[str, str]) -> str:
    env_name = api_key_env or DEFAULT_KEY_ENV[provider]
    key = environ.get(env_name, "").strip()
    if not key:
        # Name the variable, never a value.
        raise ProviderError(
            f"{provider}: environment variable {env_name} is not set (the model's key is "
            f"read from it; set it where the workers run)"
        )
    return key


def _openai_compatible(
    model_id: str,
    base_url: str,
    api_key_env: str,
    environ: Mapping[str, str],
    timeout: float,
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
) -> Provider:
    from .openai_chat import OpenAIChatProvider

    if not base_url:
        raise ProviderError("openai_compatible: a base URL is required")
    if api_key_env:
        # A model that names a variable needs it set: sending the placeholder instead would
        # come back as a puzzling 401 from a server that does check keys.
        key = _required_key("openai_compatible", api_key_env, environ)
    else:
        key = KEYLESS_PLACEHOLDER  # a local server that takes no key
    return OpenAIChatProvider(
        model_id,
        key,
        base_url=base_url,
        timeout=timeout,
        provider_name="openai_compatible",
        max_output_tokens=max_output_tokens,
    )


_shared: dict[tuple, Provider] = {}
_shared_lock = threading.Lock()


def shared_provider(
    provider: str,
    model_id: str,
    base_url: str = "",
    api_key_env: str = "",
    timeout: float = 60.0,
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
) -> Provider:
    """One provider (and so one SDK client and connection pool) per config per process.

    Building an SDK client loads the CA bundle (~10 ms of CPU); at hundreds of jobs a minute
    that would cost more than the calls. SDK clients are thread-safe. The key's current value
    is part of the cache key, so a rotated key takes effect on the next job.
    """
    env_name = api_key_env or DEFAULT_KEY_ENV.get(provider, "")
    cache_key = (
        provider,
        model_id,
        base_url,
        env_name,
        os.environ.get(env_name, ""),
        timeout,
        max_output_tokens,
    )
    with _shared_lock:
        if cache_key not in _shared:
            _shared[cache_key] = build_provider(
                provider,
                model_id,
                base_url,
                api_key_env,
                timeout=timeout,
                max_output_tokens=max_output_tokens,
            )
        return _shared[cache_key]
