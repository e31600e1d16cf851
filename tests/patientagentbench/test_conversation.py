"""The conversation loop with a scripted agent and the real office sandbox."""

import json

from patientagentbench.conversation import (
    END_REASON_LABELS,
    EndReason,
    TaskUser,
    describe_end,
    run_conversation,
)
from patientagentbench.providers.types import Completion, ToolCall
from patientagentbench.suites.install import SUITES_DIR
from sandbox.office import OfficeWorld

SUITE = json.loads((SUITES_DIR / "office-19.json").read_text())


def scripted(*completions):
    queue = list(completions)

    def complete(messages):
        return queue.pop(0)

    return complete


def call(name, raw, provider_id="call_abc"):
    return ToolCall.parse(id="x", name=name, raw_arguments=raw, provider_id=provider_id)


def world():
    return OfficeWorld.from_suite(SUITE)


def test_tool_results_flow_back_and_ids_are_neutral():
    result = run_conversation(
        complete=scripted(
            Completion("", [call("get_contact", '{"name": "alice"}', "call_XYZ")]),
            Completion("Sent.", []),
        ),
        world=world(),
        user=TaskUser("Find Alice"),
        system_prompt="sys",
    )
    assert result.end_reason == "user_ended"
    assert result.final_response == "Sent."
    assert result.calls[0]["id"] == "t1"
    assert "alice@example.com" in result.calls[0]["result"]
    tool_message = result.messages[3]
    assert tool_message.tool_call_id == "t1" and tool_message.status == "ok"
    assert result.messages[2].tool_calls[0].provider_id == "call_XYZ"


def test_malformed_arguments_are_recorded_and_answered_with_an_error():
    result = run_conversation(
        complete=scripted(
            Completion("", [call("send_email", '{"to": "a@b.c", "subject": ')]),
            Completion("Sorry.", []),
        ),
        world=world(),
        user=TaskUser("Email"),
        system_prompt="sys",
    )
    (only,) = result.calls
    assert only["malformed"] is True
    assert only["raw_arguments"] == '{"to": "a@b.c", "subject": '
    assert only["arguments"] is None
    assert only["status"] == "error"
    assert "not a valid JSON object" in only["result"]


def test_unknown_tool_is_an_error_to_the_agent_not_a_crash():
    result = run_conversation(
        complete=scripted(Completion("", [call("rm_rf", "{}")]), Completion("ok", [])),
        world=world(),
        user=TaskUser("x"),
        system_prompt="sys",
    )
    assert result.calls[0]["status"] == "error"
    assert result.error == ""


def test_max_iterations_ends_the_conversation():
    cities = ("austin", "boston", "austin")  # varied, so it is not a repeated-call loop
    looping = [Completion("", [call("get_weather", f'{{"city": "{c}"}}')]) for c in cities]
    result = run_conversation(
        complete=scripted(*looping),
        world=world(),
        user=TaskUser("x"),
        system_prompt="s",
        max_iterations=3,
    )
    assert result.end_reason == "max_iterations"
    assert len(result.calls) == 3


def test_a_provider_exception_is_kept_as_the_error():
    def complete(messages):
        raise RuntimeError("upstream said no")

    result = run_conversation(
        complete=complete, world=world(), user=TaskUser("x"), system_prompt="s"
    )
    assert result.end_reason == "error"
    assert "upstream said no" in result.error


class TwoTurnUser:
    """Stands in for the patient simulator: the seam the scenario suites plug into."""

    def __init__(self):
        self.replies = ["And the weather in Austin?"]

    def opening(self):
        return "Weather in Seattle?"

    def reply(self, messages):
        return self.replies.pop(0) if self.replies else None


def test_a_multi_turn_user_side_continues_the_conversation():
    result = run_conversation(
        complete=scripted(
            Completion("", [call("get_weather", '{"city": "seattle"}')]),
            Completion("Rain.", []),
            Completion("", [call("get_weather", '{"city": "austin"}')]),
            Completion("Sunny.", []),
        ),
        world=world(),
        user=TwoTurnUser(),
        system_prompt="s",
        max_turns=5,
    )
    assert [m.role for m in result.messages].count("user") == 2
    assert result.final_response == "Sunny."
    assert result.end_reason == "user_ended"


def test_the_same_call_three_times_running_ends_the_turn_as_a_loop():
    same = Completion("", [call("get_contact", '{"name": "nobody"}')])
    result = run_conversation(
        complete=scripted(same, same, same, Completion("never reached", [])),
        world=world(),
        user=TaskUser("Find nobody"),
        system_prompt="sys",
        max_iterations=10,
    )
    assert result.end_reason == "repeated_call"
    assert len(result.calls) == 3


def test_a_call_repeated_with_other_arguments_between_is_not_a_loop():
    first = Completion("", [call("get_contact", '{"name": "alice"}')])
    other = Completion("", [call("get_contact", '{"name": "bob"}')])
    result = run_conversation(
        complete=scripted(first, first, other, first, Completion("Done.", [])),
        world=world(),
        user=TaskUser("Find them"),
        system_prompt="sys",
    )
    assert result.end_reason == "user_ended" and len(result.calls) == 4


def test_every_end_reason_has_words_and_an_unknown_one_is_shown_as_written():
    assert set(END_REASON_LABELS) == set(EndReason)
    assert describe_end(EndReason.MAX_TURNS) == ("hit the turn limit", True)
    assert describe_end("some_old_reason") == ("some_old_reason", False)
