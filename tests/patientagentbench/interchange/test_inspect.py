"""Inspect AI logs in and out: a real log made by Inspect imports as one trace per sample ×
epoch with every message and tool call, feeds the consistency report, exports back to a log
Inspect reads, and refuses bad input in one line with nothing written."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from patientagentbench.interchange.importer import ImportFormatError, import_traces
from patientagentbench.models import Run, Trace
from tests.patientagentbench.interchange.inspect_logs import SAMPLES, make_log

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def inspect_log(tmp_path_factory):
    return make_log(tmp_path_factory.mktemp("inspect"))


def test_every_sample_and_epoch_becomes_a_trace_with_its_messages(inspect_log):
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(inspect_log))
    summary = import_traces(inspect_log)
    assert summary.traces == len(log.samples) == len(SAMPLES) * 3
    assert summary.suite.name == "chart-lookup" and summary.run.repetitions == 3
    for sample in log.samples:
        trace = Trace.objects.get(
            run=summary.run, task__task_id=sample.id, repetition=sample.epoch - 1
        )
        assert trace.model_name == "mockllm/model"
        roles = [m["role"] for m in trace.messages]
        assert roles == [m.role for m in sample.messages]
        assert [m["content"] for m in trace.messages if m["role"] != "tool"] == [
            m.text for m in sample.messages if m.role != "tool"
        ]
        call = trace.tool_calls[0]
        assert (call["name"], call["arguments"], call["status"]) == (
            "lookup_patient",
            {"name": "Ana Silva"},
            "ok",
        )
        assert call["result"] == "Ana Silva: born 1970-01-01"
        tool_message = next(m for m in trace.messages if m["role"] == "tool")
        assert tool_message["tool_call_id"] == call["id"] == "t1"
        failed = trace.tool_calls[1]  # the tool raised: Inspect's error is the result
        assert (failed["id"], failed["status"]) == ("t2", "error")
        assert "no such patient" in failed["result"]
        assert trace.correct is (sample.scores["includes"].value == "C")
        assert trace.task.attributes["inspect_scores"] == {
            "includes": sample.scores["includes"].value
        }


def test_epochs_give_the_seed_papers_consistency_analysis(inspect_log):
    """`inspect eval --epochs 3` is three repetitions per cell: TSS and AC over them."""
    run = import_traces(inspect_log).run
    out = StringIO()
    call_command("consistency_report", "--run", str(run.pk), "--format", "json", stdout=out)
    cells = json.loads(out.getvalue())
    cells = cells if isinstance(cells, list) else cells["cells"]
    assert sorted(c["task_id"] for c in cells) == sorted(SAMPLES)
    for cell in cells:
        assert (cell["model"], cell["n_valid"]) == ("mockllm/model", 3)
        # The scripted model makes the same calls every epoch: perfectly consistent.
        assert cell["tss"] == pytest.approx(1.0) and cell["ac"] == pytest.approx(1.0)


def test_a_repeat_is_refused_and_nothing_written(inspect_log):
    import_traces(inspect_log)
    with pytest.raises(ImportFormatError, match="already run"):
        import_traces(inspect_log)
    assert Run.objects.count() == 1


def test_a_broken_log_is_one_line_and_nothing_is_written(tmp_path, inspect_log):
    broken = tmp_path / "broken.eval"
    broken.write_bytes(inspect_log.read_bytes()[:2000])
    with pytest.raises(ImportFormatError) as raised:
        import_traces(broken)
    assert "\n" not in str(raised.value) and "Inspect" in str(raised.value)
    assert not Run.objects.exists()


def test_a_sample_that_does_not_fit_names_the_sample_and_field(tmp_path):
    log = make_log(tmp_path, epochs=1, model_name="mockllm/" + "m" * 300)
    with pytest.raises(ImportFormatError, match=r"sample (ana|bo)-dob, epoch 1.*model"):
        import_traces(log)
    assert not Run.objects.exists()


def test_a_run_exports_to_a_log_inspect_reads_back_the_same(tmp_path, inspect_log):
    from inspect_ai.log import read_eval_log

    original = read_eval_log(str(inspect_log))
    run = import_traces(inspect_log).run
    out = StringIO()
    call_command(
        "export_traces",
        "--run",
        str(run.pk),
        "--format",
        "inspect",
        "--out",
        str(tmp_path),
        stdout=out,
    )
    (written,) = tmp_path.glob("*.eval")
    back = read_eval_log(str(written))
    assert back.eval.model == "mockllm/model"
    key = lambda s: (str(s.id), s.epoch)  # noqa: E731
    for before, after in zip(
        sorted(original.samples, key=key), sorted(back.samples, key=key), strict=True
    ):
        assert key(before) == key(after)
        assert [(m.role, m.text) for m in before.messages if m.role != "tool"] == [
            (m.role, m.text) for m in after.messages if m.role != "tool"
        ]
        calls = lambda s: [  # noqa: E731
            (c.function, c.arguments)
            for m in s.messages
            if m.role == "assistant"
            for c in m.tool_calls or []
        ]
        assert calls(before) == calls(after)
        results = lambda s: [m.text for m in s.messages if m.role == "tool"]  # noqa: E731
        assert results(before) == results(after)
        assert (before.scores["includes"].value == "C") == (after.scores["correct"].value == "C")
        # What the viewer's columns read: the answer, tokens and time.
        assert after.output.completion == before.output.completion
        usage = lambda s: [(u.input_tokens, u.output_tokens) for u in s.model_usage.values()]  # noqa: E731
        assert usage(after) == usage(before)
        assert after.total_time == pytest.approx(before.total_time, abs=1e-3)
    assert back.stats.started_at and back.stats.completed_at
    assert back.stats.model_usage["mockllm/model"].output_tokens == sum(
        u.output_tokens for s in original.samples for u in s.model_usage.values()
    )


def test_export_to_inspect_needs_a_run(tmp_path):
    with pytest.raises(CommandError, match="--run"):
        call_command("export_traces", "--format", "inspect", "--out", str(tmp_path))


def test_a_conversation_with_a_simulated_user_maps_onto_its_turns(tmp_path):
    from inspect_ai.log import read_eval_log

    from patientagentbench.transcripts import transcript_of
    from tests.patientagentbench.interchange.inspect_logs import PATIENT_LINES, make_multiturn_log

    log_path = make_multiturn_log(tmp_path)
    samples = read_eval_log(str(log_path)).samples
    summary = import_traces(log_path)
    assert summary.traces == len(samples) == 2 and summary.run.repetitions == 2
    for sample in samples:
        trace = Trace.objects.get(run=summary.run, repetition=sample.epoch - 1)
        assert [m["role"] for m in trace.messages] == [m.role for m in sample.messages]
        transcript = transcript_of(trace.messages, user_label="Patient")
        said = [(t.speaker, t.text) for t in transcript.turns if t.speaker != "system"]
        users = [text for speaker, text in said if speaker == "user"]
        assert users == ["When is my appointment?", *PATIENT_LINES]
        speakers = [speaker for speaker, _ in said]
        assert speakers[0] == "user" and speakers[-1] == "agent"
        assert speakers.count("user") == 3 and "Goodbye." in [t for _, t in said]
        (card,) = transcript.tool_cards
        assert (card.name, card.result, card.status) == (
            "move_appointment",
            "moved to Friday",
            "ok",
        )
        assert trace.final_response == "Goodbye." and trace.correct is False

    out = StringIO()
    call_command("consistency_report", "--run", str(summary.run.pk), "--format", "json", stdout=out)
    (cell,) = json.loads(out.getvalue())
    assert (cell["task_id"], cell["n_valid"]) == ("reschedule", 2)
