"""What the patient sees of the conversation: its chat window, not the agent's machinery.

No system prompt, no tool calls or results, no reasoning blocks - including the half-tagged
ones some servers emit.
"""

from __future__ import annotations

import re

from patientagentbench.providers.types import Message

_THINK_BLOCK = re.compile(r"<(think|thinking)>.*?</\1>", re.S | re.I)
_ORPHAN_CLOSE = re.compile(r"\A.*?</(?:think|thinking)>", re.S | re.I)
_UNCLOSED_OPEN = re.compile(r"<(?:think|thinking)>.*\Z", re.S | re.I)


def strip_thinking(text: str) -> str:
    """Text without reasoning blocks, including the half-tagged ones some servers emit."""
    text = _THINK_BLOCK.sub("", text or "")
    text = _ORPHAN_CLOSE.sub("", text)  # chat templates that open the block themselves
    text = _UNCLOSED_OPEN.sub("", text)  # an answer cut off while still thinking
    return text.strip()


def visible_to_patient(messages: list[Message]) -> list[tuple[str, str]]:
    """The conversation as the patient's chat window shows it: ("patient" | "agent", text).

    No system prompt, no tool calls or results, no thinking; agent messages that were only
    tool calls show nothing at all.
    """
    visible = []
    for message in messages:
        if message.role == "user":
            visible.append(("patient", message.content))
        elif message.role == "assistant":
            text = strip_thinking(message.content)
            if text:
                visible.append(("agent", text))
    return visible


def agent_replies(visible: list[tuple[str, str]]) -> list[str]:
    """What the agent wrote after each patient message ("" when it wrote nothing)."""
    replies: list[list[str]] = []
    for role, text in visible:
        if role == "patient":
            replies.append([])
        elif replies:
            replies[-1].append(text)
    return ["\n\n".join(parts) for parts in replies]
