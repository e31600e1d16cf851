"""OpenAI Chat Completions with function tools; also serves OpenAI-compatible servers."""

from __future__ import annotations

from typing import Any

import openai

from .errors import translate_sdk_error
from .types import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    CallContext,
    Completion,
    Message,
    OutputSchema,
    ProviderError,
    ToolCall,
    output_limit,
)
from .wire import ProviderCallIds, function_spec, placeholder_call_id, wire_call_id


class OpenAIChatProvider:
    supports_temperature = True

    def __init__(
        self,
        model_id: str,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 60,
        provider_name: str = "openai",
        max_output_tokens: int | None = DEFAULT_MAX_OUTPUT_TOKENS,
    ) -> None:
        self.model_id = model_id
        self.provider_name = provider_name
        self.max_output_tokens = max_output_tokens
        # Retries belong to call_with_retries and the job runner, never hidden in the SDK.
        self._client = openai.OpenAI(
            api_key=api_key, base_url=base_url or None, max_retries=0, timeout=timeout
        )

    def complete(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        temperature: float,
        context: CallContext,
    ) -> Completion:
        # The conversation and the tools go as `extra_body`, which the SDK sends as given:
        # as typed arguments it would walk them against its TypedDicts on every call (about
        # 1 ms of CPU for a conversation offered ten tools), to send the same JSON. They are
        # plain JSON already (to_wire_messages, to_wire_tools). `messages` stays named, empty,
        # because the SDK requires the argument; the body's `messages` is the extra one.
        body: dict[str, Any] = {"messages": to_wire_messages(messages)}
        if tools:
            body["tools"] = to_wire_tools(tools)
        request: dict[str, Any] = {
            "model": self.model_id,
            "messages": [],
            "temperature": temperature,
            "extra_body": body,
        }
        if context.output_schema is not None:
            request["response_format"] = response_format(context.output_schema)
        limit = output_limit(self.max_output_tokens, context.max_output_tokens)
        if limit:
            # OpenAI's own API names it max_completion_tokens; compatible servers max_tokens.
            key = "max_completion_tokens" if self.provider_name == "openai" else "max_tokens"
            request[key] = limit
        try:
            response = self._client.chat.completions.create(**request)
        except openai.OpenAIError as exc:
            raise translate_sdk_error(exc, openai, self.provider_name) from exc
        return completion_from_response(response, self.provider_name)


def response_format(output: OutputSchema) -> dict[str, Any]:
    """Structured output: the server constrains the answer to the schema (strict mode)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": output.name, "schema": output.schema, "strict": True},
    }


def to_wire_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": function_spec(tool)} for tool in tools]


def to_wire_messages(messages: list[Message]) -> list[dict[str, Any]]:
    call_ids = ProviderCallIds()
    wire: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "assistant":
            call_ids.remember(message.tool_calls)
            wire.append(_assistant_message(message))
        elif message.role == "tool":
            wire.append(
                {
                    "role": "tool",
                    "tool_call_id": call_ids.for_neutral_id(message.tool_call_id),
                    "content": message.content,
                }
            )
        elif message.role in ("system", "user"):
            wire.append({"role": message.role, "content": message.content})
        else:
            raise ProviderError(f"unknown message role {message.role!r}")
    return wire


def _assistant_message(message: Message) -> dict[str, Any]:
    if not message.tool_calls:
        return {"role": "assistant", "content": message.content}
    return {
        "role": "assistant",
        # The API wants null, not "", beside tool calls that come without text.
        "content": message.content or None,
        "tool_calls": [_wire_tool_call(call) for call in message.tool_calls],
    }


def _wire_tool_call(call: ToolCall) -> dict[str, Any]:
    return {
        "id": wire_call_id(call),
        "type": "function",
        # Sent back verbatim, malformed or not: the model sees what it really said.
        # Only the empty string becomes "{}", which is how ToolCall.parse read it.
        "function": {"name": call.name, "arguments": call.raw_arguments or "{}"},
    }


def completion_from_response(response: Any, provider_name: str = "openai") -> Completion:
    if not response.choices:
        raise ProviderError(f"{provider_name}: response has no choices")
    choice = response.choices[0]
    message = choice.message
    usage = response.usage
    return Completion(
        text=message.content or "",
        tool_calls=[
            _neutral_tool_call(index, call) for index, call in enumerate(message.tool_calls or [])
        ],
        tokens_in=(usage.prompt_tokens or 0) if usage else 0,
        tokens_out=(usage.completion_tokens or 0) if usage else 0,
        thinking=_reasoning_text(message),
        # warnings=False: an off-schema payload is kept as sent, not complained about.
        raw=response.model_dump(mode="json", warnings=False),
        truncated=choice.finish_reason == "length",
    )


def _neutral_tool_call(index: int, call: Any) -> ToolCall:
    if call.type == "custom":  # free-form tools send their input as a plain string
        name, raw_arguments = call.custom.name, call.custom.input
    else:
        name, raw_arguments = call.function.name, call.function.arguments
    return ToolCall.parse(
        id=placeholder_call_id(index),
        name=name,
        raw_arguments=raw_arguments or "",
        provider_id=call.id,
    )


def _reasoning_text(message: Any) -> str:
    # Compatible servers (vLLM, DeepSeek, OpenRouter) return reasoning as extra fields.
    extra = message.model_extra or {}
    for key in ("reasoning_content", "reasoning"):
        value = extra.get(key)
        if isinstance(value, str) and value:
            return value
    return ""
