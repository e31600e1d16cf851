"""The simulated patient: the user side of a scenario conversation (DESIGN §3).

Both patients keep the loop's contract: `opening()` is the case's opening message, word for
word, so every repetition starts from the same input; `reply(messages)` is the next patient
message, or None as the end signal.

- `OfflinePatient` answers from the case (profile, hidden story, goal, care preference) in
  its persona's style. It decides from what the agent *wrote*, never from tool calls, the way
  a person at a chat window would. When its need is met it sends one short closing turn
  ("Thanks, that's all I needed.") and ends on the reply after that, so the agent gets to say
  goodbye and the transcript does not stop mid-exchange. It gives up the same way once its
  patience runs out, often after asking for a human first. An agent message that repeats an
  earlier one (word for word or nearly) is no progress, whatever it offers; an agent that says
  it can do no more wears patience out twice as fast.
  A patient with a question (INFORMATIONAL) wants an answer: a visit it did not ask for is
  taken up only sometimes (more with a preference for one) and otherwise turned down with
  the question asked again in its own words (`question_phrases`, never one fixed template);
  an offer to message its doctor is usually accepted, and a message sent counts as progress.
  Once it had a fair answer, it settles rather than asking the same thing round in circles.
- `LLMPatient` plays the case through any Provider from a persona prompt, with roles flipped
  so the patient model sees the agent as its "user". It ends when the model writes `[END]`.

Determinism: every choice the offline patient makes comes from `stable_rng(case, seed,
turn, ...)`, and it keeps no state between calls: each reply replays the conversation so far
from its start. The same case, seed and agent messages give the same words in any process;
another seed gives different, equally plausible wording and choices. Facts about the person
(how long the pain has lasted, a preference for mornings) depend on the case only, so
repetitions describe the same patient.

The modules by role: `visible` (what the patient sees), `reading` and `options` (the agent's
message as the patient takes it in), `case`, `persona` and `needs` (who the patient is and
what it wants), the offline patient - `offline` (the decision), `reply` (its memory and the
reply being written), `answering` (the dispatch table by question kind) with
`answers_record` and `answers_story`, `offers`, `ending` and `compose` - then `llm` (the
model-played patient), `phrases` (what it says, by personality) and `wording`.
"""

from __future__ import annotations

from typing import Any

from patientagentbench.providers.types import Provider

from . import phrases
from .llm import ASSISTANT_REMINDER, END_TOKEN, LLMPatient, persona_prompt
from .needs import direct_question, question_phrases
from .offline import OfflinePatient
from .reading import read_agent_turn
from .visible import agent_replies, strip_thinking, visible_to_patient

__all__ = [
    "ASSISTANT_REMINDER",
    "END_TOKEN",
    "LLMPatient",
    "OfflinePatient",
    "agent_replies",
    "direct_question",
    "patient_for",
    "persona_prompt",
    "phrases",
    "question_phrases",
    "read_agent_turn",
    "strip_thinking",
    "visible_to_patient",
]


def patient_for(
    case: dict[str, Any], seed: int, provider: Provider | None = None, temperature: float = 1.0
) -> OfflinePatient | LLMPatient:
    """The patient for a trace: the model-played one when a provider is configured."""
    if provider is not None:
        return LLMPatient(provider, case, seed, temperature)
    return OfflinePatient(case, seed)
