"""build_provider: keys from the environment only, and each kind wired to the right SDK."""

import sys
import types

import pytest

from patientagentbench.providers.anthropic_messages import AnthropicProvider
from patientagentbench.providers.factory import DEFAULT_KEY_ENV, build_provider
from patientagentbench.providers.openai_chat import OpenAIChatProvider
from patientagentbench.providers.types import CallContext, Message, ProviderError
from tests.fakes.llm_server import ANTHROPIC, OPENAI, text_reply

HELLO = [Message(role="user", content="Hello")]


def say_hello(provider):
    return provider.complete(HELLO, [], 1.0, CallContext())


def header(request, name):
    return {k.lower(): v for k, v in request.headers.items()}.get(name)


def test_default_key_variables():
    assert DEFAULT_KEY_ENV == {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_missing_key_names_the_variable(provider):
    with pytest.raises(ProviderError, match=DEFAULT_KEY_ENV[provider]):
        build_provider(provider, "m", environ={})


def test_missing_custom_key_variable_is_named():
    with pytest.raises(ProviderError, match="TEAM_OPENAI_KEY"):
        build_provider(
            "openai", "m", api_key_env="TEAM_OPENAI_KEY", environ={"OPENAI_API_KEY": "x"}
        )


def test_openai_uses_the_key_from_the_environment(llm_server):
    llm_server.script(OPENAI, text_reply("Hi"))
    provider = build_provider(
        "openai",
        "gpt-test",
        base_url=llm_server.openai_base_url,
        environ={"OPENAI_API_KEY": "sk-from-env"},
    )

    assert isinstance(provider, OpenAIChatProvider)
    assert say_hello(provider).text == "Hi"
    assert header(llm_server.requests[0], "authorization") == "Bearer sk-from-env"


def test_anthropic_uses_the_key_from_the_environment(llm_server):
    llm_server.script(ANTHROPIC, text_reply("Hi"))
    provider = build_provider(
        "anthropic",
        "claude-test",
        base_url=llm_server.anthropic_base_url,
        environ={"ANTHROPIC_API_KEY": "sk-ant-from-env"},
    )

    assert isinstance(provider, AnthropicProvider)
    assert say_hello(provider).text == "Hi"
    [request] = llm_server.requests
    assert "sk-ant-from-env" in (header(request, "authorization") or header(request, "x-api-key"))


def test_openai_compatible_requires_a_base_url():
    with pytest.raises(ProviderError, match="base URL"):
        build_provider("openai_compatible", "llama", environ={})


def test_openai_compatible_without_a_key_variable_sends_a_placeholder(llm_server):
    llm_server.script(OPENAI, text_reply("Hi"))
    provider = build_provider(
        "openai_compatible", "llama-3", base_url=llm_server.openai_base_url, environ={}
    )

    assert say_hello(provider).text == "Hi"
    assert header(llm_server.requests[0], "authorization") == "Bearer not-needed"


def test_openai_compatible_with_its_key_variable_unset_says_so(llm_server):
    # A model that names a key variable needs it: a placeholder would come back as a
    # puzzling 401 from a server that checks keys.
    with pytest.raises(ProviderError, match="VLLM_KEY is not set"):
        build_provider(
            "openai_compatible",
            "llama-3",
            base_url=llm_server.openai_base_url,
            api_key_env="VLLM_KEY",
            environ={},
        )
    assert llm_server.requests == []


def test_openai_compatible_reads_the_named_variable(llm_server):
    llm_server.script(OPENAI, text_reply("Hi"))
    provider = build_provider(
        "openai_compatible",
        "llama-3",
        base_url=llm_server.openai_base_url,
        api_key_env="TOGETHER_API_KEY",
        environ={"TOGETHER_API_KEY": "tg-123"},
    )

    say_hello(provider)

    assert header(llm_server.requests[0], "authorization") == "Bearer tg-123"
    assert provider.provider_name == "openai_compatible"


def test_simulated_is_built_lazily(monkeypatch):
    class SimulatedAgentProvider:
        def __init__(self, model_id):
            self.model_id = model_id

    module = types.ModuleType("patientagentbench.simulated.agent")
    module.SimulatedAgentProvider = SimulatedAgentProvider
    monkeypatch.setitem(sys.modules, "patientagentbench.simulated.agent", module)

    provider = build_provider("simulated", "sim-steady", environ={})

    assert isinstance(provider, SimulatedAgentProvider)
    assert provider.model_id == "sim-steady"


def test_unknown_provider_is_refused():
    with pytest.raises(ProviderError, match="unknown provider"):
        build_provider("bard", "m", environ={})


@pytest.mark.slow
def test_preload_imports_only_the_sdks_the_models_use():
    """A fresh interpreter, since this one has imported both SDKs already."""
    import subprocess

    probe = (
        "import sys; from patientagentbench.providers.factory import preload_sdks; "
        "assert 'openai' not in sys.modules; preload_sdks(['openai_compatible', 'simulated']); "
        "print('openai' in sys.modules, 'anthropic' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout

    assert out.split() == ["True", "False"]
