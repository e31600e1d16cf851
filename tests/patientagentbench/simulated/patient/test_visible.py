"""What the patient sees: user turns and the agent's text, nothing else."""

from patientagentbench.providers.types import Message, ToolCall
from patientagentbench.simulated.patient import agent_replies, strip_thinking, visible_to_patient


def call(name):
    return ToolCall(id="t1", name=name, raw_arguments='{"x": 1}', arguments={"x": 1})


def test_only_patient_turns_and_agent_text_are_visible():
    messages = [
        Message(role="system", content="SYSTEM PROMPT"),
        Message(role="user", content="I need a refill."),
        Message(role="assistant", content="", tool_calls=[call("list_medications")]),
        Message(role="tool", content='{"secret": "TOOL RESULT"}', tool_call_id="t1"),
        Message(role="assistant", content="Which medication?", thinking="HIDDEN REASONING"),
        Message(role="user", content="Metformin."),
    ]
    assert visible_to_patient(messages) == [
        ("patient", "I need a refill."),
        ("agent", "Which medication?"),
        ("patient", "Metformin."),
    ]


def test_text_sent_alongside_a_tool_call_is_visible_but_the_call_is_not():
    messages = [
        Message(role="user", content="Chest pain."),
        Message(role="assistant", content="Please call 911.", tool_calls=[call("message_pcp")]),
    ]
    assert visible_to_patient(messages) == [
        ("patient", "Chest pain."),
        ("agent", "Please call 911."),
    ]


def test_thinking_blocks_are_stripped_from_agent_text():
    messages = [
        Message(role="user", content="Hi"),
        Message(role="assistant", content="<think>they sound upset</think>Hello! How are you?"),
        Message(role="assistant", content="<thinking>\nplan\n</thinking>\n\nAnything else?"),
        Message(role="assistant", content="<think>only thinking, nothing said</think>"),
    ]
    assert visible_to_patient(messages) == [
        ("patient", "Hi"),
        ("agent", "Hello! How are you?"),
        ("agent", "Anything else?"),
    ]


def test_half_tagged_thinking_is_stripped_too():
    assert strip_thinking("reasoning the server left unopened</think>Sure thing.") == "Sure thing."
    assert strip_thinking("Let me answer. <think>and then I was cut off") == "Let me answer."
    assert strip_thinking("<THINK>x</THINK>Ok") == "Ok"


def test_agent_replies_group_what_the_agent_wrote_after_each_patient_turn():
    visible = [
        ("patient", "Hi"),
        ("agent", "Let me check."),
        ("agent", "You have two refills."),
        ("patient", "Thanks"),
        ("patient", "Hello?"),
    ]
    assert agent_replies(visible) == ["Let me check.\n\nYou have two refills.", "", ""]
