"""Real Inspect AI logs, made by Inspect itself, offline: its `mockllm/model` provider answers
from a script (a tool call, then a text), a small task with one tool and several epochs.

Inspect counts tokens with tiktoken's o200k_base, which it downloads on first use; offline
that fails inside `generate`, so the count is replaced by a word count for the log's making
(the only thing replaced, and only while the log is made)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.services import IN_CI

try:
    import inspect_ai  # noqa: F401 - the optional extra
except ImportError:  # CI installs the extra (make test), so there a missing one is a failure
    if IN_CI:
        raise
    pytest.skip("needs the inspect extra: uv sync --extra inspect", allow_module_level=True)

SAMPLES = {"ana-dob": "When was Ana Silva born?", "bo-dob": "When was Bo Chen born?"}


def make_log(folder: Path, *, epochs: int = 3, model_name: str = "mockllm/model") -> Path:
    import inspect_ai.model._model as inspect_model
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
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
        dataset=[Sample(input=text, target="1970", id=key) for key, text in SAMPLES.items()],
        solver=[use_tools(lookup_patient()), generate()],
        scorer=includes(),
        epochs=epochs,
        name="chart-lookup",
    )
    saved = inspect_model.count_text_tokens
    inspect_model.count_text_tokens = lambda text: max(1, len(text.split()))
    try:
        logs = inspect_eval(
            task,
            model=get_model(model_name, custom_outputs=script()),
            log_dir=str(folder),
            display="none",
            max_samples=1,  # the script's turns stay in order
        )
    finally:
        inspect_model.count_text_tokens = saved
    assert logs[0].status == "success", logs[0].error
    return Path(logs[0].location)
