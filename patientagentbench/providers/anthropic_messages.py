"""Anthropic Messages API with client tools."""

from __future__ import annotations

import json
from typing import Any

import anthropic

from .errors import translate_sdk_error
from .types import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    CallContext,
    Completion,
    Message,
    ProviderError,
    ToolCall,
    output_limit,
)
from .wire import ProviderCallIds, function_spec, placeholder_call_id, wire_call_id

REPLAYED_BLOCK_TYPES = ("thinking", "redacted_thinking")


class AnthropicProvider:
    # API version 2026-10-21 (sent by SDK 2.x) rejects temperature, top_p and top_k with a
    # 400 on every model, so the requested temperature cannot reach the model. Runs read this
    # flag to label Anthropic cells as sampled at the model's own setting.
    supports_temperature = False

    def __init__(
        self,
        model_id: str,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 60,
        max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
    ) -> None:
        self.model_id = model_id
        self.max_output_tokens = max_output_tokens
        # Retries belong to call_with_retries and the job runner, never hidden in the SDK.
        self._client = anthropic.Anthropic(
            api_key=api_key, base_url=base_url or None, max_retries=0, timeout=timeout
        )

    def complete(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        temperature: float,
        context: CallContext,
    ) -> Completion:
        request: dict[str, Any] = {
            "model": self.model_id,
            # Required by the API; the model's cap, or the call's when that is lower.
            "max_tokens": output_limit(self.max_output_tokens, context.max_output_tokens),
            "messages": to_wire_messages(messages),
        }
        system = system_prompt(messages)
        if system:
            request["system"] = system
        if tools:
            request["tools"] = to_wire_tools(tools)
        if context.output_schema is not None:
            # Anthropic's structured output is a forced call of one tool whose input schema is
            # the answer's; the call's input comes back as the completion's tool call.
            output = context.output_schema
            request["tools"] = [
                {
                    "name": output.name,
                    "description": output.description,
                    "input_schema": output.schema,
                }
            ]
            request["tool_choice"] = {"type": "tool", "name": output.name}
        try:
            response = self._client.messages.create(**request)
        except anthropic.AnthropicError as exc:
            raise translate_sdk_error(exc, anthropic, "anthropic") from exc
        return completion_from_response(response)


def to_wire_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    wire = []
    for tool in tools:
        spec = function_spec(tool)
        wire.append(
            {
                "name": spec["name"],
                "description": spec["description"],
                "input_schema": spec["parameters"],
            }
        )
    return wire


def system_prompt(messages: list[Message]) -> str:
    return "\n\n".join(m.content for m in messages if m.role == "system" and m.content)


def to_wire_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """User/assistant turns as content blocks; adjacent same-role turns merged into one.

    Merging is what puts consecutive tool results into a single user message, as the API
    expects, and keeps a patient's reply after tool results in that same user turn.
    """
    call_ids = ProviderCallIds()
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        if message.role == "assistant":
            call_ids.remember(message.tool_calls)
            role, blocks = "assistant", _assistant_blocks(message)
        elif message.role == "tool":
            role, blocks = "user", [_tool_result_block(message, call_ids)]
        elif message.role == "user":
            role, blocks = "user", _text_blocks(message.content)
        else:
            raise ProviderError(f"unknown message role {message.role!r}")
        _append_turn(turns, role, blocks)
    return turns


def _append_turn(turns: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    if not blocks:  # the API rejects empty turns and empty text blocks
        return
    if turns and turns[-1]["role"] == role:
        turns[-1]["content"].extend(blocks)
    else:
        turns.append({"role": role, "content": list(blocks)})


def _text_blocks(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}] if text else []


def _assistant_blocks(message: Message) -> list[dict[str, Any]]:
    return [
        *_replayed_thinking(message.raw),
        *_text_blocks(message.content),
        *(_tool_use_block(call) for call in message.tool_calls),
    ]


def _replayed_thinking(raw: dict[str, Any] | None) -> list[dict[str, Any]]:
    # With tool use, thinking blocks must go back exactly as received (signature intact);
    # only our own raw payloads carry them, so anything else is left out.
    if not raw or raw.get("type") != "message":
        return []
    return [
        block
        for block in raw.get("content") or []
        if isinstance(block, dict) and block.get("type") in REPLAYED_BLOCK_TYPES
    ]


def _tool_use_block(call: ToolCall) -> dict[str, Any]:
    # `input` must be an object; a malformed call can only come from another provider's
    # log, and its raw string stays in that log.
    return {
        "type": "tool_use",
        "id": wire_call_id(call),
        "name": call.name,
        "input": call.arguments if call.arguments is not None else {},
    }


def _tool_result_block(message: Message, call_ids: ProviderCallIds) -> dict[str, Any]:
    return {
        "type": "tool_result",
        "tool_use_id": call_ids.for_neutral_id(message.tool_call_id),
        "content": message.content,
        "is_error": message.status == "error",
    }


def completion_from_response(response: Any) -> Completion:
    texts, thoughts, calls = [], [], []
    for block in response.content:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "thinking":
            thoughts.append(block.thinking)
        elif block.type == "redacted_thinking":
            thoughts.append("[redacted thinking]")
        elif block.type == "tool_use":
            calls.append(_neutral_tool_call(len(calls), block))
    return Completion(
        text="".join(texts),
        tool_calls=calls,
        tokens_in=input_tokens(response.usage),
        tokens_out=response.usage.output_tokens or 0,
        thinking="\n\n".join(thoughts),
        # warnings=False: an off-schema payload is kept as sent, not complained about.
        raw=response.model_dump(mode="json", warnings=False),
        truncated=response.stop_reason == "max_tokens",
    )


def _neutral_tool_call(index: int, block: Any) -> ToolCall:
    # The SDK hands over `input` already decoded; re-encoding it keeps one neutral
    # representation. A non-object input (never seen from the real API) parses as malformed.
    return ToolCall.parse(
        id=placeholder_call_id(index),
        name=block.name,
        raw_arguments=json.dumps(block.input, ensure_ascii=False),
        provider_id=block.id,
    )


def input_tokens(usage: Any) -> int:
    # Cached prompt tokens are reported apart from input_tokens but are still input.
    return (
        (usage.input_tokens or 0)
        + (getattr(usage, "cache_creation_input_tokens", None) or 0)
        + (getattr(usage, "cache_read_input_tokens", None) or 0)
    )
