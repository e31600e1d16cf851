"""The fake server's policy mode, as a benchmark uses it: whole conversations, many at once."""

import dataclasses
import json
import time
from concurrent.futures import ThreadPoolExecutor

from patientagentbench.providers.anthropic_messages import AnthropicProvider
from patientagentbench.providers.openai_chat import OpenAIChatProvider
from patientagentbench.providers.types import CallContext, Message
from tests.fakes.llm_server import ANTHROPIC, OPENAI, FakeLLMServer, example_arguments

TOOLS = [
    {
        "name": "get_available_appointments",
        "description": "Open slots.",
        "parameters": {
            "type": "object",
            "properties": {
                "specialty": {"type": "string", "enum": ["cardiology", "dermatology"]},
                "days": {"type": "integer"},
                "note": {"type": "string"},
            },
            "required": ["specialty", "days"],
        },
    }
]


def run_turn(provider, log, max_iterations=4):
    """A minimal agent loop: call, execute tools, repeat until a text answer."""
    for iteration in range(max_iterations):
        completion = provider.complete(log, TOOLS, 1.0, CallContext())
        calls = [
            dataclasses.replace(c, id=f"i{len(log)}-{iteration}-{n}")
            for n, c in enumerate(completion.tool_calls)
        ]
        log.append(Message(role="assistant", content=completion.text, tool_calls=calls))
        if not calls:
            return completion
        log.extend(
            Message(role="tool", content=json.dumps({"slots": []}), tool_call_id=c.id)
            for c in calls
        )
    raise AssertionError("no text answer")


def test_example_arguments_fill_required_properties():
    schema = TOOLS[0]["parameters"]

    assert example_arguments(schema) == {"specialty": "cardiology", "days": 1}


def test_policy_calls_the_first_tool_once_per_user_turn():
    with FakeLLMServer() as server:
        provider = OpenAIChatProvider("gpt-test", "sk", base_url=server.openai_base_url)
        log = [Message(role="user", content="Any cardiology slots?")]

        run_turn(provider, log)
        log.append(Message(role="user", content="And next week?"))
        run_turn(provider, log)

    roles = [m.role for m in log]
    assert roles == ["user", "assistant", "tool", "assistant"] * 2
    first_call = log[1].tool_calls[0]
    assert first_call.name == "get_available_appointments"
    assert first_call.arguments == {"specialty": "cardiology", "days": 1}


def test_policy_speaks_anthropic_too():
    with FakeLLMServer() as server:
        provider = AnthropicProvider("claude-test", "sk", base_url=server.anthropic_base_url)
        log = [Message(role="user", content="Any slots?")]

        final = run_turn(provider, log)

    assert [m.role for m in log] == ["user", "assistant", "tool", "assistant"]
    assert final.text
    assert len(server.bodies(ANTHROPIC)) == 2


def test_many_concurrent_conversations_with_latency():
    conversations = 64
    with FakeLLMServer(latency=0.1) as server:
        provider = OpenAIChatProvider("gpt-test", "sk", base_url=server.openai_base_url)

        def converse(n):
            return run_turn(provider, [Message(role="user", content=f"Patient {n}")])

        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=conversations) as pool:
            finals = list(pool.map(converse, range(conversations)))
        elapsed = time.monotonic() - started

    assert all(f.text for f in finals)
    assert len(server.bodies(OPENAI)) == 2 * conversations
    # Served in parallel: far less than the 12.8 s that one-at-a-time would take.
    assert elapsed < 6.0
