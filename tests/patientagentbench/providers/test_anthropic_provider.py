"""AnthropicProvider through the real anthropic SDK against the local fake server."""

import dataclasses
import json
import time

import pytest

from patientagentbench.providers.anthropic_messages import AnthropicProvider, to_wire_messages
from patientagentbench.providers.types import (
    CallContext,
    Message,
    ProviderError,
    ToolCall,
    TransientProviderError,
)
from tests.fakes.llm_server import (
    ANTHROPIC,
    delayed_reply,
    error_reply,
    malformed_tool_call,
    single_tool_call,
    text_reply,
    tool_call_reply,
)

TOOLS = [
    {
        "name": "list_medications",
        "description": "List the patient's medications.",
        "parameters": {"type": "object", "properties": {}},
    },
    {
        "name": "request_refill",
        "description": "Request a refill.",
        "parameters": {
            "type": "object",
            "properties": {"medication": {"type": "string"}},
            "required": ["medication"],
        },
    },
]
SYSTEM = Message(role="system", content="You are a clinic assistant.")
USER = Message(role="user", content="I need a refill of my lisinopril.")


def provider_for(server, timeout=5.0, api_key="sk-ant-test"):
    return AnthropicProvider(
        "claude-test", api_key, base_url=server.anthropic_base_url, timeout=timeout
    )


def ask(provider, messages, tools=TOOLS):
    return provider.complete(messages, tools, 1.0, CallContext())


def renumbered(call, neutral_id):
    return dataclasses.replace(call, id=neutral_id)


def test_tool_result_goes_back_under_the_tool_use_id(llm_server):
    llm_server.script(
        ANTHROPIC,
        single_tool_call("request_refill", {"medication": "lisinopril"}),
        text_reply("Your refill has been requested."),
    )
    provider = provider_for(llm_server)

    first = ask(provider, [SYSTEM, USER])
    [call] = first.tool_calls
    assert call.name == "request_refill"
    assert call.arguments == {"medication": "lisinopril"}
    assert call.provider_id.startswith("toolu_")
    assert not call.malformed

    call = renumbered(call, "t3")
    result = Message(role="tool", content='{"status": "requested"}', tool_call_id="t3")
    second = ask(provider, [SYSTEM, USER, Message(role="assistant", tool_calls=[call]), result])

    assert second.text == "Your refill has been requested."
    body = llm_server.bodies(ANTHROPIC)[1]
    assert body["system"] == "You are a clinic assistant."
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": USER.content}]},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": call.provider_id,
                    "name": "request_refill",
                    "input": {"medication": "lisinopril"},
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": call.provider_id,
                    "content": '{"status": "requested"}',
                    "is_error": False,
                }
            ],
        },
    ]


def test_request_shape_tools_and_no_temperature(llm_server):
    llm_server.script(ANTHROPIC, text_reply("Hello"))
    provider = provider_for(llm_server)

    provider.complete([SYSTEM, USER], TOOLS, 0.2, CallContext())

    [body] = llm_server.bodies(ANTHROPIC)
    assert body["model"] == "claude-test"
    assert body["max_tokens"] == 2048
    assert body["tools"][1] == {
        "name": "request_refill",
        "description": "Request a refill.",
        "input_schema": TOOLS[1]["parameters"],
    }
    # API version 2026-10-21 rejects sampling parameters outright.
    assert "temperature" not in body
    assert provider.supports_temperature is False


def test_consecutive_tool_results_merge_into_one_user_message(llm_server):
    llm_server.script(
        ANTHROPIC,
        tool_call_reply(("list_medications", {}), ("request_refill", {"medication": "x"})),
        text_reply("Done."),
    )
    provider = provider_for(llm_server)
    calls = [renumbered(c, f"t{i}") for i, c in enumerate(ask(provider, [USER]).tool_calls, 1)]
    log = [
        USER,
        Message(role="assistant", content="Checking.", tool_calls=calls),
        Message(role="tool", content="[lisinopril]", tool_call_id="t1", status="ok"),
        Message(role="tool", content="unknown medication", tool_call_id="t2", status="error"),
    ]

    assert ask(provider, log).text == "Done."

    sent = llm_server.bodies(ANTHROPIC)[1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[1]["content"][0] == {"type": "text", "text": "Checking."}
    assert sent[2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": calls[0].provider_id,
            "content": "[lisinopril]",
            "is_error": False,
        },
        {
            "type": "tool_result",
            "tool_use_id": calls[1].provider_id,
            "content": "unknown medication",
            "is_error": True,
        },
    ]


def test_patient_reply_after_tool_results_joins_the_same_user_turn():
    call = ToolCall.parse(id="t1", name="list_medications", raw_arguments="{}", provider_id="tu_1")
    log = [
        USER,
        Message(role="assistant", tool_calls=[call]),
        Message(role="tool", content="[]", tool_call_id="t1"),
        Message(role="user", content="Also, can I see Dr. Lee?"),
    ]

    wire = to_wire_messages(log)

    assert [block["type"] for block in wire[-1]["content"]] == ["tool_result", "text"]


def test_text_answer_with_thinking_and_usage(llm_server):
    llm_server.script(
        ANTHROPIC,
        text_reply("Please keep taking it.", thinking="Check interactions.", tokens_in=50),
    )

    completion = ask(provider_for(llm_server), [SYSTEM, USER])

    assert completion.text == "Please keep taking it."
    assert completion.thinking == "Check interactions."
    assert completion.tokens_in == 50
    assert completion.tokens_out > 0
    assert completion.raw["id"].startswith("msg_")
    assert completion.raw["stop_reason"] == "end_turn"
    assert completion.truncated is False
    json.dumps(completion.raw)


def test_an_answer_stopped_at_max_tokens_is_marked_truncated(llm_server):
    llm_server.script(ANTHROPIC, text_reply("The agent first sa", truncated=True))

    completion = ask(provider_for(llm_server), [SYSTEM, USER])

    assert completion.truncated is True and completion.raw["stop_reason"] == "max_tokens"


def test_thinking_blocks_are_replayed_with_their_signature(llm_server):
    llm_server.script(
        ANTHROPIC,
        single_tool_call("list_medications", {}, thinking="Look it up first."),
        text_reply("Done."),
    )
    provider = provider_for(llm_server)
    first = ask(provider, [USER])
    call = renumbered(first.tool_calls[0], "t1")
    assistant = Message(role="assistant", tool_calls=[call], thinking=first.thinking, raw=first.raw)

    ask(provider, [USER, assistant, Message(role="tool", content="[]", tool_call_id="t1")])

    sent = llm_server.bodies(ANTHROPIC)[1]["messages"][1]["content"]
    assert sent[0] == {"type": "thinking", "thinking": "Look it up first.", "signature": "sig-fake"}
    assert sent[1]["type"] == "tool_use"


def test_input_that_is_not_an_object_is_malformed(llm_server):
    llm_server.script(ANTHROPIC, malformed_tool_call("request_refill", "lisinopril please"))

    [call] = ask(provider_for(llm_server), [USER]).tool_calls

    assert call.malformed is True
    assert call.arguments is None
    assert call.raw_arguments == '"lisinopril please"'


def test_429_is_transient_with_retry_after(llm_server):
    llm_server.script(ANTHROPIC, error_reply(429, "rate limited", headers={"retry-after": "12"}))

    with pytest.raises(TransientProviderError) as caught:
        ask(provider_for(llm_server), [USER])

    assert (caught.value.status, caught.value.retry_after) == (429, 12.0)


@pytest.mark.parametrize("status", [500, 529])
def test_server_errors_and_overload_are_transient(llm_server, status):
    llm_server.script(ANTHROPIC, error_reply(status, "busy"))

    with pytest.raises(TransientProviderError) as caught:
        ask(provider_for(llm_server), [USER])

    assert caught.value.status == status


def test_timeout_is_transient(llm_server):
    llm_server.script(ANTHROPIC, delayed_reply(3.0))
    started = time.monotonic()

    with pytest.raises(TransientProviderError, match="timed out"):
        ask(provider_for(llm_server, timeout=0.5), [USER])

    assert time.monotonic() - started < 2.5


def test_400_is_permanent(llm_server):
    llm_server.script(ANTHROPIC, error_reply(400, "messages: roles must alternate"))

    with pytest.raises(ProviderError) as caught:
        ask(provider_for(llm_server), [USER])

    assert not isinstance(caught.value, TransientProviderError)
    assert "roles must alternate" in str(caught.value)
    assert len(llm_server.requests) == 1


def test_auth_error_does_not_echo_the_key(llm_server):
    llm_server.script(ANTHROPIC, error_reply(401, "invalid x-api-key"))

    with pytest.raises(ProviderError) as caught:
        ask(provider_for(llm_server, api_key="sk-ant-very-secret"), [USER])

    assert "sk-ant-very-secret" not in str(caught.value)
