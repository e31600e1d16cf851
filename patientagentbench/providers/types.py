"""The provider-neutral message log.

Every provider translates to and from these types, so the loop, storage, metrics and the
review pages never see a provider's wire format. Provider tool-call ids (`call_…`,
`toolu_…`) live only in `ToolCall.provider_id` and the raw payloads; everything a person
sees uses the neutral `ToolCall.id`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol


@dataclass
class ToolCall:
    id: str  # neutral, e.g. "t1"; assigned by the loop
    name: str
    raw_arguments: str  # exactly what the model sent
    arguments: dict[str, Any] | None  # None when raw_arguments did not parse to an object
    provider_id: str = ""
    malformed: bool = False

    @classmethod
    def parse(cls, *, id: str, name: str, raw_arguments: str, provider_id: str = "") -> ToolCall:
        """Parse a model's argument string; never repair it (a repair would hide model error)."""
        try:
            parsed = json.loads(raw_arguments) if raw_arguments.strip() else {}
        except (json.JSONDecodeError, TypeError):
            parsed = None
        malformed = not isinstance(parsed, dict)
        return cls(
            id=id,
            name=name,
            raw_arguments=raw_arguments,
            arguments=None if malformed else parsed,
            provider_id=provider_id,
            malformed=malformed,
        )


@dataclass
class Message:
    role: str  # "system" | "user" | "assistant" | "tool"
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str = ""  # neutral id of the call a tool message answers
    tool_name: str = ""
    status: str = ""  # tool messages: "ok" | "error"
    thinking: str = ""  # kept for researchers, never shown to patients or reviewers
    raw: dict[str, Any] | None = None  # provider payload, for researchers only

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        calls = [ToolCall(**c) for c in data.get("tool_calls", [])]
        return cls(**{**data, "tool_calls": calls})


@dataclass
class Completion:
    """One model answer: text and/or tool calls, with usage."""

    text: str
    tool_calls: list[ToolCall]
    tokens_in: int = 0
    tokens_out: int = 0
    thinking: str = ""
    raw: dict[str, Any] | None = None
    # The answer stopped at the output cap (OpenAI `finish_reason: "length"`, Anthropic
    # `stop_reason: "max_tokens"`): what came back is cut, not what the model meant to say.
    truncated: bool = False


# Every call asks for at most this many output tokens unless a model config says otherwise.
DEFAULT_MAX_OUTPUT_TOKENS = 2048
MAX_OUTPUT_TOKENS_CEILING = 200_000


def output_limit(model_limit: int | None, call_limit: int | None) -> int | None:
    """The cap a call sends: the model's, or the call's own when that is lower."""
    limits = [limit for limit in (model_limit, call_limit) if limit]
    return min(limits) if limits else None


@dataclass
class CallContext:
    """What a call is for. Real providers ignore most of it; the simulated one is seeded by it."""

    seed: int = 0
    task: dict[str, Any] | None = None
    timeout_s: float = 60.0
    # Ask for one JSON object matching a schema: OpenAI `response_format` json_schema,
    # Anthropic a forced call of a tool with that input schema. None: a free answer.
    output_schema: OutputSchema | None = None
    # A cap on the answer's length; a small local model asked for JSON can otherwise write
    # thousands of tokens of rationale (seen with a real 0.5B judge). It can only lower the
    # provider's own cap (the model config's max output tokens), never raise it.
    max_output_tokens: int | None = None


@dataclass(frozen=True)
class OutputSchema:
    name: str
    description: str
    schema: dict[str, Any]


class ProviderError(Exception):
    """A call that failed for good (bad request, auth, unparseable answer)."""


class TransientProviderError(ProviderError):
    """A call worth retrying: 429, 5xx, timeout, connection reset."""

    def __init__(
        self,
        message: str,
        retry_after: float | None = None,
        status: int | None = None,
        timed_out: bool = False,
    ):
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status
        # The call ran past its timeout (client side, or HTTP 408): a retry then says the
        # timeout may be too short for the model, which a researcher should hear about.
        self.timed_out = timed_out or status == 408


class Provider(Protocol):
    def complete(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        temperature: float,
        context: CallContext,
    ) -> Completion: ...
