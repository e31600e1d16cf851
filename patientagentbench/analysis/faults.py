"""Faults of a conversation a researcher should see beside its score: things that went wrong
in the talk itself that no outcome check is about.

- `agent_echo`: an agent reply that is the patient's last message said back, word for word
  (ignoring case, spacing and punctuation) or with a few words around it. A small model can
  copy its user's turn as its own answer; the patient then hears itself, and a transcript
  read quickly can look like a real exchange. Only the same words count: a reply that
  differs in a date or a number ("message 1" for "message 0") is a reply, however close.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# A reply that holds the patient's message whole is a copy when the message is at least this
# share of it (a reply that quotes the patient and then answers is not).
ECHO_BULK = 0.6
# "Yes." answered "Yes." is agreement, not a copy: shorter patient messages are not checked.
ECHO_MIN_WORDS = 3


def normalised(text: str) -> str:
    """Lower case, words only: punctuation and spacing do not make a copy different."""
    return " ".join(re.findall(r"\w+", text.lower()))


def copies(reply: str, message: str) -> bool:
    """Whether `reply` is `message` said back: the same words, or the whole of it as the
    bulk of the reply."""
    said, heard = normalised(reply), normalised(message)
    if len(heard.split()) < ECHO_MIN_WORDS or not said:
        return False
    return f" {heard} " in f" {said} " and len(heard) >= ECHO_BULK * len(said)


def agent_echoes(turns: Sequence[tuple[str, str]]) -> list[int]:
    """The positions in `turns` ((speaker, text): speaker "user" or "agent", as a transcript
    names them) of agent replies that copy the patient's last message."""
    echoed, last_heard = [], ""
    for position, (speaker, text) in enumerate(turns):
        if speaker == "user":
            last_heard = text
        elif speaker == "agent" and text and last_heard and copies(text, last_heard):
            echoed.append(position)
    return echoed
