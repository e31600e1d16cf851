"""The model-played patient: persona prompt, flipped roles, [END], and its two guards."""

from __future__ import annotations

from patientagentbench.providers.types import CallContext, Completion, Message, ToolCall
from patientagentbench.simulated.patient import (
    ASSISTANT_REMINDER,
    END_TOKEN,
    LLMPatient,
    OfflinePatient,
    patient_for,
    persona_prompt,
)
from tests.patientagentbench.simulated.patient.cases import make_case


class FakeProvider:
    """Answers from a script and records every call it gets."""

    def __init__(self, *answers: str | Completion):
        self.answers = [a if isinstance(a, Completion) else Completion(a, []) for a in answers]
        self.calls: list[dict] = []

    def complete(self, messages, tools, temperature, context):
        self.calls.append(
            {"messages": messages, "tools": tools, "temperature": temperature, "context": context}
        )
        return self.answers.pop(0)


def agent_turn(*texts: str) -> list[Message]:
    case = make_case("prescription_renewal", "anxious")
    messages = [
        Message(role="system", content="AGENT SYSTEM PROMPT"),
        Message(role="user", content=case["opening"]),
    ]
    for text in texts:
        messages.append(Message(role="assistant", content=text))
    return messages


def roles_and_text(messages: list[Message]) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in messages]


# --- Persona prompt -------------------------------------------------------------------------


def test_persona_prompt_holds_profile_story_goal_preference_and_traits():
    case = make_case(
        "prescription_renewal",
        "anxious",
        traits={"patience": "low", "health_literacy": "low"},
        attributes={"care_preference": "remote"},
    )
    prompt = persona_prompt(case)
    for expected in (
        "Maria Lopez",
        "1955-04-02",
        "metformin 500 mg twice daily",
        "CVS Pharmacy #4412",
        case["story"],
        case["goal"]["summary"],
        case["opening"],
        "video or phone visit",
        "anxious",
        "patience (low)",
        "after about 3 unhelpful replies",
        "health literacy (low)",
        END_TOKEN,
        "not an assistant",
        "only when asked",
    ):
        assert expected in prompt, expected


def test_persona_prompt_does_not_leak_what_the_checks_expect():
    case = make_case("emergency_symptoms", "stoic")
    case["goal"]["must_not"] = ["request_refill"]
    prompt = persona_prompt(case)
    assert "must_escalate" not in prompt and "request_refill" not in prompt


# --- Role flipping --------------------------------------------------------------------------


def test_roles_are_flipped_and_only_visible_text_is_sent():
    case = make_case("prescription_renewal", "anxious")
    provider = FakeProvider("It's April 2, 1955.")
    patient = LLMPatient(provider, case, seed=5, temperature=0.7)
    call = ToolCall(id="t1", name="list_medications", raw_arguments="{}", arguments={})
    messages = [
        Message(role="system", content="AGENT SYSTEM PROMPT"),
        Message(role="user", content=case["opening"]),
        Message(role="assistant", content="", tool_calls=[call], thinking="AGENT THINKING"),
        Message(role="tool", content="SECRET TOOL RESULT", tool_call_id="t1"),
        Message(role="assistant", content="<think>hmm</think>Can you confirm your birth date?"),
    ]
    assert patient.reply(messages) == "It's April 2, 1955."
    (sent,) = provider.calls
    assert sent["tools"] == [] and sent["temperature"] == 0.7
    assert isinstance(sent["context"], CallContext) and isinstance(sent["context"].seed, int)
    system, cue, *rest = sent["messages"]
    assert system.role == "system" and system.content == persona_prompt(case)
    assert cue.role == "user"  # providers want the first turn to be the user's
    assert roles_and_text(rest) == [
        ("assistant", case["opening"]),
        ("user", "Can you confirm your birth date?"),
    ]
    everything = " ".join(m.content for m in sent["messages"])
    for hidden in ("AGENT SYSTEM PROMPT", "SECRET TOOL RESULT", "AGENT THINKING", "hmm"):
        assert hidden not in everything


def test_several_agent_messages_in_one_turn_reach_the_patient_as_one():
    provider = FakeProvider("Okay.")
    patient = LLMPatient(provider, make_case(), seed=1)
    patient.reply(agent_turn("Let me check.", "You have no refills left."))
    last = provider.calls[0]["messages"][-1]
    assert last.role == "user" and last.content == "Let me check.\n\nYou have no refills left."


def test_an_agent_turn_without_text_is_shown_as_silence():
    provider = FakeProvider("Hello?")
    patient = LLMPatient(provider, make_case(), seed=1)
    assert patient.reply(agent_turn("")) == "Hello?"
    last = provider.calls[0]["messages"][-1]
    assert last.role == "user" and "not written anything" in last.content


def test_the_patient_models_own_thinking_is_kept_for_researchers_not_sent():
    provider = FakeProvider(
        Completion("<think>I should act worried</think>I'm scared.", [], thinking="raw")
    )
    patient = LLMPatient(provider, make_case(), seed=1)
    assert patient.reply(agent_turn("What's going on?")) == "I'm scared."
    assert "I should act worried" in patient.log[0]["text"] and patient.log[0]["thinking"] == "raw"


def test_speaker_labels_and_wrapping_quotes_are_dropped():
    patient = LLMPatient(FakeProvider('Patient: "It\'s the metformin."'), make_case(), seed=1)
    assert patient.reply(agent_turn("Which one?")) == "It's the metformin."


# --- Ending ---------------------------------------------------------------------------------


def test_a_message_with_end_is_sent_and_the_next_reply_ends():
    provider = FakeProvider(f"Thank you so much! {END_TOKEN}")
    patient = LLMPatient(provider, make_case(), seed=1)
    assert patient.reply(agent_turn("Your refill has been sent.")) == "Thank you so much!"
    assert patient.reply(agent_turn("You're welcome!")) is None
    assert len(provider.calls) == 1  # the end needs no model call


def test_a_bare_end_ends_at_once():
    patient = LLMPatient(FakeProvider(" [END] "), make_case(), seed=1)
    assert patient.reply(agent_turn("Anything else?")) is None
    assert patient.reply(agent_turn("Hello?")) is None


def test_text_after_end_is_dropped():
    patient = LLMPatient(FakeProvider("Bye! [end] (closes the chat)"), make_case(), seed=1)
    assert patient.reply(agent_turn("Take care.")) == "Bye!"


# --- Guards ---------------------------------------------------------------------------------


def test_an_empty_answer_is_retried_once_then_the_patient_ends():
    provider = FakeProvider("", "Sorry, yes, the metformin.")
    patient = LLMPatient(provider, make_case(), seed=1)
    assert patient.reply(agent_turn("Which medication?")) == "Sorry, yes, the metformin."
    provider = FakeProvider("<think>...</think>", "   ")
    patient = LLMPatient(provider, make_case(), seed=1)
    assert patient.reply(agent_turn("Which medication?")) is None
    assert len(provider.calls) == 2


def test_an_assistant_sounding_answer_is_retried_with_a_reminder():
    provider = FakeProvider("How can I help you today?", "I need my metformin refilled.")
    patient = LLMPatient(provider, make_case(), seed=1)
    assert patient.reply(agent_turn("Hello!")) == "I need my metformin refilled."
    first, second = provider.calls
    assert ASSISTANT_REMINDER not in " ".join(m.content for m in first["messages"])
    assert second["messages"][-1].content == ASSISTANT_REMINDER
    assert first["context"].seed != second["context"].seed


def test_only_one_retry_for_an_assistant_voice():
    provider = FakeProvider("Is there anything else I can help with?", "I'd be happy to help!")
    patient = LLMPatient(provider, make_case(), seed=1)
    assert patient.reply(agent_turn("Hello!")) == "I'd be happy to help!"
    assert len(provider.calls) == 2


# --- Seeds and the factory ------------------------------------------------------------------


def call_seeds(seed: int) -> list[int]:
    provider = FakeProvider("One.", "Two.")
    patient = LLMPatient(provider, make_case(), seed=seed)
    patient.reply(agent_turn("First?"))
    patient.reply(
        agent_turn("First?")
        + [Message(role="user", content="One."), Message(role="assistant", content="Second?")]
    )
    return [c["context"].seed for c in provider.calls]


def test_call_seeds_repeat_per_patient_seed_and_differ_between_seeds_and_turns():
    assert call_seeds(3) == call_seeds(3)
    assert call_seeds(3) != call_seeds(4)
    assert len(set(call_seeds(3))) == 2


def test_usage_is_counted():
    provider = FakeProvider(Completion("Sure.", [], tokens_in=120, tokens_out=3))
    patient = LLMPatient(provider, make_case(), seed=1)
    patient.reply(agent_turn("Ready?"))
    assert (patient.tokens_in, patient.tokens_out) == (120, 3)


def test_factory_picks_the_llm_patient_only_with_a_provider():
    case = make_case()
    assert isinstance(patient_for(case, 1), OfflinePatient)
    llm = patient_for(case, 1, provider=FakeProvider(), temperature=0.3)
    assert isinstance(llm, LLMPatient) and llm.temperature == 0.3
    assert llm.opening() == case["opening"]


def test_runs_inside_the_conversation_loop_and_ends_on_end():
    from patientagentbench.conversation import run_conversation

    class NoWorld:
        def call(self, name, arguments):
            raise AssertionError("no tools here")

    agent = iter(["Which medication?", "Refill sent to CVS.", "Take care!"])
    patient = patient_for(make_case(), 2, provider=FakeProvider("Metformin.", "Thanks! [END]"))
    result = run_conversation(
        complete=lambda messages: Completion(next(agent), []),
        world=NoWorld(),
        user=patient,
        system_prompt="clinic assistant",
        max_turns=10,
    )
    assert result.end_reason == "user_ended"
    said = [m.content for m in result.messages if m.role == "user"]
    assert said[1:] == ["Metformin.", "Thanks!"]


# --- A broken patient -----------------------------------------------------------------------


def test_a_patient_that_echoes_the_agent_is_asked_again_once():
    echoed = '{"name": "list_doctors", "arguments": {"specialty": "Cardiology"}}'
    provider = FakeProvider(echoed, "I just need my refill, please.")
    patient = LLMPatient(provider, make_case(), seed=1)
    assert patient.reply(agent_turn(echoed)) == "I just need my refill, please."
    assert "Do not copy" in provider.calls[1]["messages"][-1].content


def test_a_patient_that_keeps_echoing_ends_the_conversation_as_broken():
    import pytest

    from patientagentbench.conversation import EndConversation

    agent_said = "Which pharmacy should I send it to?"
    patient = LLMPatient(
        FakeProvider(agent_said, " which pharmacy should I send it to? "), make_case(), seed=1
    )
    with pytest.raises(EndConversation) as stop:
        patient.reply(agent_turn(agent_said))
    assert stop.value.reason == "patient_broken" and "copied" in stop.value.error


def test_a_broken_patient_makes_an_errored_trace_not_a_failed_agent():
    from patientagentbench.conversation import run_conversation
    from sandbox.office import OfficeWorld

    class Parrot:
        def opening(self):
            return "Hello"

        def reply(self, messages):
            from patientagentbench.conversation import EndConversation

            raise EndConversation("patient_broken", "the LLM patient copied a message twice")

    result = run_conversation(
        complete=lambda messages: Completion("How can I help?", []),
        world=OfficeWorld.from_suite({"environment": {}, "tools": []}),
        user=Parrot(),
        system_prompt="sys",
        max_turns=3,
    )
    assert result.end_reason == "patient_broken" and "copied" in result.error


def test_a_patient_repeating_itself_to_a_repeating_agent_is_not_broken():
    provider = FakeProvider("Sorry, I don't understand.")
    patient = LLMPatient(provider, make_case(), seed=1)
    messages = agent_turn("Please hold.")
    messages.append(Message(role="user", content="Sorry, I don't understand."))
    messages.append(Message(role="assistant", content="Please hold."))
    assert patient.reply(messages) == "Sorry, I don't understand."
    assert len(provider.calls) == 1


# --- Rejected answers, kept for researchers ---------------------------------------------------


def test_every_answer_asked_for_again_is_kept_with_why():
    provider = FakeProvider(
        Completion("How can I help you today?", [], thinking="act helpful"),
        "I need my metformin refilled.",
        "",
        "Sorry, the metformin.",
    )
    patient = LLMPatient(provider, make_case(), seed=1)
    patient.reply(agent_turn("Hello!"))
    patient.reply(
        agent_turn("Hello!")
        + [
            Message(role="user", content="I need my metformin refilled."),
            Message(role="assistant", content="Which one?"),
        ]
    )
    assert [(a["turn"], a["attempt"], a["rejected"]) for a in patient.rejected_attempts] == [
        (1, 0, "sounded like the assistant"),
        (2, 0, "empty"),
    ]
    first = patient.rejected_attempts[0]
    assert first["text"] == "How can I help you today?" and first["thinking"] == "act helpful"


def test_a_broken_patients_two_copies_are_kept():
    import pytest

    from patientagentbench.conversation import EndConversation

    said = "Which pharmacy should I send it to?"
    patient = LLMPatient(FakeProvider(said, said), make_case(), seed=1)
    with pytest.raises(EndConversation):
        patient.reply(agent_turn(said))
    assert [a["rejected"] for a in patient.rejected_attempts] == [
        "copied the agent",
        "copied the agent again: the patient is broken",
    ]
