"""OpenAIChatProvider through the real openai SDK against the local fake server."""

import dataclasses
import json
import socket
import time

import pytest

from patientagentbench.providers.openai_chat import OpenAIChatProvider
from patientagentbench.providers.types import (
    CallContext,
    Message,
    ProviderError,
    TransientProviderError,
)
from tests.fakes.llm_server import (
    OPENAI,
    delayed_reply,
    error_reply,
    malformed_tool_call,
    single_tool_call,
    text_reply,
    tool_call_reply,
)

TOOLS = [
    {
        "name": "list_appointments",
        "description": "List the patient's appointments.",
        "parameters": {
            "type": "object",
            "properties": {"patient_id": {"type": "string"}},
            "required": ["patient_id"],
        },
    },
    {
        "name": "get_profile",
        "description": "Read the patient's profile.",
        "parameters": {"type": "object", "properties": {}},
    },
]
SYSTEM = Message(role="system", content="You are a clinic assistant.")
USER = Message(role="user", content="When is my next appointment?")


def provider_for(server, timeout=5.0, api_key="sk-test-key"):
    return OpenAIChatProvider("gpt-test", api_key, base_url=server.openai_base_url, timeout=timeout)


def ask(provider, messages, tools=TOOLS, temperature=1.0):
    return provider.complete(messages, tools, temperature, CallContext())


def renumbered(call, neutral_id):
    """What the agent loop does: give the call a conversation-wide neutral id."""
    return dataclasses.replace(call, id=neutral_id)


def test_tool_result_goes_back_under_the_provider_call_id(llm_server):
    llm_server.script(
        OPENAI,
        single_tool_call("list_appointments", {"patient_id": "p-1"}),
        text_reply("Your next appointment is on Monday."),
    )
    provider = provider_for(llm_server)

    first = ask(provider, [SYSTEM, USER])
    [call] = first.tool_calls
    assert call.name == "list_appointments"
    assert call.arguments == {"patient_id": "p-1"}
    assert call.provider_id.startswith("call_")
    assert not call.malformed

    call = renumbered(call, "t7")
    answer = Message(role="tool", content='{"appointments": []}', tool_call_id="t7", status="ok")
    second = ask(provider, [SYSTEM, USER, Message(role="assistant", tool_calls=[call]), answer])

    assert second.text == "Your next appointment is on Monday."
    assert second.tool_calls == []
    sent = llm_server.bodies(OPENAI)[1]["messages"]
    assert sent[0] == {"role": "system", "content": "You are a clinic assistant."}
    assert sent[2]["tool_calls"] == [
        {
            "id": call.provider_id,
            "type": "function",
            "function": {"name": "list_appointments", "arguments": '{"patient_id": "p-1"}'},
        }
    ]
    assert sent[2]["content"] is None
    assert sent[3] == {
        "role": "tool",
        "tool_call_id": call.provider_id,
        "content": '{"appointments": []}',
    }


def test_request_carries_model_temperature_and_wrapped_tools(llm_server):
    llm_server.script(OPENAI, text_reply("Hello"))
    ask(provider_for(llm_server), [SYSTEM, USER], temperature=0.3)

    [body] = llm_server.bodies(OPENAI)
    assert body["model"] == "gpt-test"
    assert body["temperature"] == 0.3
    assert body["tools"][0] == {"type": "function", "function": TOOLS[0]}


def test_parallel_calls_over_several_steps(llm_server):
    llm_server.script(
        OPENAI,
        tool_call_reply(("get_profile", {}), ("list_appointments", {"patient_id": "p-1"})),
        single_tool_call("get_profile", {}),
        text_reply("All set."),
    )
    provider = provider_for(llm_server)
    log = [SYSTEM, USER]

    for step in range(2):
        completion = ask(provider, log)
        calls = [renumbered(c, f"s{step}-{i}") for i, c in enumerate(completion.tool_calls)]
        log.append(Message(role="assistant", tool_calls=calls))
        log.extend(Message(role="tool", content=f"result {c.id}", tool_call_id=c.id) for c in calls)
    final = ask(provider, log)

    assert final.text == "All set."
    sent = llm_server.bodies(OPENAI)[2]["messages"]
    call_ids = [tc["id"] for m in sent if m["role"] == "assistant" for tc in m["tool_calls"]]
    answered = [m["tool_call_id"] for m in sent if m["role"] == "tool"]
    assert len(call_ids) == 3 and len(set(call_ids)) == 3
    assert answered == call_ids
    assert all(i.startswith("call_") for i in call_ids)


def test_text_answer_records_usage_and_raw_payload(llm_server):
    llm_server.script(OPENAI, text_reply("Take it with food.", tokens_in=42, tokens_out=7))

    completion = ask(provider_for(llm_server), [SYSTEM, USER])

    assert completion.text == "Take it with food."
    assert completion.tool_calls == []
    assert (completion.tokens_in, completion.tokens_out) == (42, 7)
    assert completion.raw["id"].startswith("chatcmpl-")
    assert completion.raw["choices"][0]["finish_reason"] == "stop"
    assert completion.truncated is False
    json.dumps(completion.raw)  # storable as-is


def test_an_answer_stopped_at_the_cap_is_marked_truncated(llm_server):
    llm_server.script(OPENAI, text_reply('{"rationale": "cut', truncated=True))

    completion = ask(provider_for(llm_server), [SYSTEM, USER])

    assert completion.truncated is True and completion.text == '{"rationale": "cut'


def test_malformed_arguments_stay_malformed_and_verbatim(llm_server):
    broken = '{"doctor_id": "d-3", "time": '
    llm_server.script(OPENAI, malformed_tool_call("schedule_appointment", broken))

    [call] = ask(provider_for(llm_server), [SYSTEM, USER]).tool_calls

    assert call.malformed is True
    assert call.arguments is None
    assert call.raw_arguments == broken


def test_malformed_arguments_are_sent_back_verbatim(llm_server):
    broken = "{'doctor_id': 'd-3'}"
    llm_server.script(OPENAI, malformed_tool_call("schedule_appointment", broken), text_reply("?"))
    provider = provider_for(llm_server)
    call = renumbered(ask(provider, [SYSTEM, USER]).tool_calls[0], "t1")
    error = Message(
        role="tool", content="arguments are not JSON", tool_call_id="t1", status="error"
    )

    ask(provider, [SYSTEM, USER, Message(role="assistant", tool_calls=[call]), error])

    sent = llm_server.bodies(OPENAI)[1]["messages"]
    assert sent[2]["tool_calls"][0]["function"]["arguments"] == broken


def test_reasoning_from_compatible_servers_becomes_thinking(llm_server):
    llm_server.script(OPENAI, text_reply("Fine.", thinking="The patient asks about dosage."))

    completion = ask(provider_for(llm_server), [SYSTEM, USER])

    assert completion.thinking == "The patient asks about dosage."
    assert completion.text == "Fine."


def test_429_is_transient_with_retry_after_seconds(llm_server):
    llm_server.script(OPENAI, error_reply(429, "slow down", headers={"Retry-After": "7"}))

    with pytest.raises(TransientProviderError) as caught:
        ask(provider_for(llm_server), [SYSTEM, USER])

    assert caught.value.status == 429
    assert caught.value.retry_after == 7.0


def test_429_retry_after_ms_is_converted_to_seconds(llm_server):
    llm_server.script(OPENAI, error_reply(429, headers={"retry-after-ms": "1500"}))

    with pytest.raises(TransientProviderError) as caught:
        ask(provider_for(llm_server), [SYSTEM, USER])

    assert caught.value.retry_after == 1.5


def test_500_is_transient(llm_server):
    llm_server.script(OPENAI, error_reply(500, "upstream exploded"))

    with pytest.raises(TransientProviderError) as caught:
        ask(provider_for(llm_server), [SYSTEM, USER])

    assert caught.value.status == 500
    assert caught.value.retry_after is None


def test_timeout_is_transient(llm_server):
    llm_server.script(OPENAI, delayed_reply(3.0))
    started = time.monotonic()

    with pytest.raises(TransientProviderError, match="timed out"):
        ask(provider_for(llm_server, timeout=0.5), [SYSTEM, USER])

    assert time.monotonic() - started < 2.5  # the client gave up; no SDK retries


def test_connection_refused_is_transient():
    with socket.socket() as probe:  # a port nobody listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    provider = OpenAIChatProvider("gpt-test", "sk", base_url=f"http://127.0.0.1:{port}/v1")

    with pytest.raises(TransientProviderError, match="connection"):
        ask(provider, [SYSTEM, USER])


def test_400_is_permanent(llm_server):
    llm_server.script(OPENAI, error_reply(400, "tools[0] is invalid"))

    with pytest.raises(ProviderError) as caught:
        ask(provider_for(llm_server), [SYSTEM, USER])

    assert not isinstance(caught.value, TransientProviderError)
    assert "400" in str(caught.value)
    assert len(llm_server.requests) == 1  # max_retries=0: the SDK did not retry


def test_auth_error_does_not_echo_the_key(llm_server):
    llm_server.script(OPENAI, error_reply(401, "invalid credentials"))

    with pytest.raises(ProviderError) as caught:
        ask(provider_for(llm_server, api_key="sk-very-secret"), [SYSTEM, USER])

    assert "sk-very-secret" not in str(caught.value)
    assert not isinstance(caught.value, TransientProviderError)
