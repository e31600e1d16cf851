"""Real Inspect AI logs, made by Inspect itself, offline: its `mockllm/model` provider answers
from a script (a tool call, then a text), a small task with one tool and several epochs.

Inspect counts tokens with tiktoken's o200k_base, which it downloads on first use; offline
that fails inside `generate`, so the count is replaced by a word count for the log's making
(the only thing replaced, and only while the log is made)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from importlib.util import find_spec
from pathlib import Path

import pytest

from tests.services import IN_CI

# Found, not imported: importing Inspect takes ~1.3 s, which every pytest-xdist worker would
# pay while collecting; the functions below import it when a test makes a log.
if find_spec("inspect_ai") is None:  # the optional extra
    message = "needs the inspect extra: uv sync --extra inspect"
    if IN_CI:  # CI installs the extra (make test), so there a missing one is a failure
        raise ImportError(message)
    pytest.skip(message, allow_module_level=True)

SAMPLES = {"ana-dob": "When was Ana Silva born?", "bo-dob": "When was Bo Chen born?"}


def make_log(
    folder: Path, *, epochs: int = 3, model_name: str = "mockllm/model", metadata=None
) -> Path:
    """`metadata`: every sample's Inspect metadata (none by default)."""
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, get_model
    from inspect_ai.scorer import includes
    from inspect_ai.solver import generate, use_tools
    from inspect_ai.tool import ToolError, tool

    @tool
    def lookup_patient():
        async def execute(name: str) -> str:
            """Look up a patient's chart.

            Args:
                name: the patient's full name
            """
            if name == "Nobody":
                raise ToolError("no such patient")  # a tool error the model sees
            return f"{name}: born 1970-01-01"

        return execute

    def script():
        while True:
            yield ModelOutput.for_tool_call(
                "mockllm/model", "lookup_patient", {"name": "Ana Silva"}
            )
            yield ModelOutput.for_tool_call("mockllm/model", "lookup_patient", {"name": "Nobody"})
            yield ModelOutput.from_content("mockllm/model", "Ana Silva was born in 1970.")

    task = Task(
        dataset=[
            Sample(input=text, target="1970", id=key, metadata=metadata)
            for key, text in SAMPLES.items()
        ],
        solver=[use_tools(lookup_patient()), generate()],
        scorer=includes(),
        epochs=epochs,
        name="chart-lookup",
    )
    return run_offline(task, get_model(model_name, custom_outputs=script()), folder)


def run_offline(task, model, folder: Path) -> Path:
    """Run `task` on `model` with Inspect, offline, one sample at a time (a script's turns stay
    in order), and return the log's path."""
    import inspect_ai.model._model as inspect_model
    from inspect_ai import eval as inspect_eval

    saved = inspect_model.count_text_tokens
    inspect_model.count_text_tokens = lambda text: max(1, len(text.split()))
    try:
        # In a thread of its own: Inspect starts an event loop, and a pytest worker that has
        # run a browser test holds Playwright's running loop in this thread ("Cannot run the
        # event loop while another loop is running", seen once tests ran a module per worker).
        with ThreadPoolExecutor(max_workers=1) as thread:
            logs = thread.submit(
                inspect_eval,
                task,
                model=model,
                log_dir=str(folder),
                display="none",
                max_samples=1,
            ).result()
    finally:
        inspect_model.count_text_tokens = saved
    assert logs[0].status == "success", logs[0].error
    return Path(logs[0].location)


PATIENT_LINES = ("Thanks. Can I move my appointment to Friday?", "Great, that's all. Bye.")


def make_multiturn_log(folder: Path, *, epochs: int = 2) -> Path:
    """A conversation with a simulated user, as Inspect evals build one: a solver that lets
    the agent answer, then asks a second model (the user simulator) for the user's next
    message, until the user says goodbye."""
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessageUser, ModelOutput, get_model
    from inspect_ai.scorer import includes
    from inspect_ai.solver import solver, use_tools
    from inspect_ai.tool import tool

    @tool
    def move_appointment():
        async def execute(day: str) -> str:
            """Move the patient's appointment.

            Args:
                day: the new day
            """
            return f"moved to {day}"

        return execute

    def agent_script():
        while True:
            yield ModelOutput.from_content("mockllm/model", "You are booked for Tuesday.")
            yield ModelOutput.for_tool_call("mockllm/model", "move_appointment", {"day": "Friday"})
            yield ModelOutput.from_content("mockllm/model", "Done: Friday at 9.")
            yield ModelOutput.from_content("mockllm/model", "Goodbye.")

    def user_script():
        while True:
            for line in PATIENT_LINES:
                yield ModelOutput.from_content("mockllm/model", line)

    user_simulator = get_model("mockllm/model", custom_outputs=user_script(), memoize=False)

    @solver
    def talk_with_simulated_user(max_turns: int = 4):
        async def solve(state, generate):
            for _ in range(max_turns):
                state = await generate(state)  # the agent, tool calls included
                reply = await user_simulator.generate(
                    [ChatMessageUser(content=state.output.completion)]
                )
                state.messages.append(ChatMessageUser(content=reply.completion))
                if "Bye" in reply.completion:
                    state = await generate(state)
                    break
            return state

        return solve

    task = Task(
        dataset=[Sample(input="When is my appointment?", target="Friday", id="reschedule")],
        solver=[use_tools(move_appointment()), talk_with_simulated_user()],
        scorer=includes(),
        epochs=epochs,
        name="reschedule-chat",
    )
    agent = get_model("mockllm/model", custom_outputs=agent_script(), memoize=False)
    return run_offline(task, agent, folder)
