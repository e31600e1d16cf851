"""Import validation (issue 13, item 3): a hostile file gives one clean line naming the record
and the field, exit status 1 and nothing written; what is accepted is stored and renders."""

import copy
import hashlib
import json
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from patientagentbench.cases.generate import generate_case_set
from patientagentbench.interchange import schema
from patientagentbench.interchange.importer import ImportFormatError, import_traces
from patientagentbench.models import Run, Suite, Task, Trace

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).resolve().parents[3] / "fixtures" / "golden"
RELEASE = json.loads((GOLDEN / "consistency-cases.json").read_text())[:2]
CONVERSATIONS = json.loads((GOLDEN / "patientagentbench-sample" / "conversations.json").read_text())

# A JSONL record with every field the format names, as `export_traces` writes them.
RECORD = {
    "format": "patientagentbench.trace/1",
    "suite": "hostile-bench",
    "suite_world": "",
    "task_id": "new-task",
    "category": "retrieval",
    "difficulty": "easy",
    "prompt": "Find it.",
    "model": "m",
    "temperature": 0.7,
    "repetition": 0,
    "status": "done",
    "end_reason": "user_ended",
    "error": "",
    "messages": [
        {"role": "user", "content": "Find it."},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "t1",
                    "name": "lookup",
                    "raw_arguments": '{"q": 1}',
                    "arguments": {"q": 1},
                    "provider_id": "call_1",
                    "malformed": False,
                }
            ],
        },
        {"role": "tool", "content": "{}", "tool_call_id": "t1", "tool_name": "lookup"},
        {"role": "assistant", "content": "Found."},
    ],
    "tool_calls": [
        {
            "id": "t1",
            "name": "lookup",
            "arguments": {"q": 1},
            "raw_arguments": '{"q": 1}',
            "malformed": False,
            "status": "ok",
            "result": "{}",
        }
    ],
    "final_response": "Found.",
    "side_effects": [{"kind": "note", "title": "x"}],
    "final_state": {"notes": []},
    "tokens_in": 10,
    "tokens_out": 5,
    "latency_ms": 12.5,
    "cost": "0.000120",
    "correct": True,
    "correctness": {"passed": True, "checks": [{"name": "c", "passed": True, "detail": ""}]},
    "attributes": {"category": "retrieval"},
    "case": None,
}
MISSING = object()


def jsonl(**changes) -> bytes:
    record = {**RECORD, **changes}
    record = {key: value for key, value in record.items() if value is not MISSING}
    return (json.dumps(record) + "\n").encode()


def jsonl_text(text: str) -> bytes:
    """A record with a raw JSON fragment spliced in (NaN, 1e400: what json.dumps won't write)."""
    return ('{"task_id": "t", "model": "m", "tool_calls": [], ' + text + "}\n").encode()


def release(mutate) -> bytes:
    data = copy.deepcopy(RELEASE)
    mutate(data)
    return json.dumps(data).encode()


def conversations(mutate) -> bytes:
    data = copy.deepcopy(CONVERSATIONS)
    mutate(data)
    return json.dumps(data).encode()


def setter(*path_and_value):
    *path, key, value = path_and_value

    def mutate(data):
        for part in path:
            data = data[part]
        data[key] = value

    return mutate


def counts() -> tuple[int, int, int, int]:
    return (Run.objects.count(), Trace.objects.count(), Task.objects.count(), Suite.objects.count())


def run_cli(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def populated(tmp_path):
    """Something in the database, so "nothing written" is not just "still empty"."""
    path = tmp_path / "earlier.jsonl"
    path.write_bytes(jsonl(suite="earlier", task_id="earlier-task"))
    run_cli("import_traces", str(path))
    return counts()


# (id, file contents, what the one line must say: the record and the field)
HOSTILE = [
    # --- JSONL: each bounded field out of range and of the wrong type
    ("cost-1e30", jsonl(cost="1e30"), "line 1, field 'cost': must be a number >= 0"),
    ("cost-negative", jsonl(cost=-0.01), "line 1, field 'cost'"),
    ("cost-at-limit", jsonl(cost=100_000_000), "line 1, field 'cost'"),
    ("cost-rounds-over", jsonl(cost="99999999.9999999"), "line 1, field 'cost'"),
    ("cost-text", jsonl(cost="cheap"), "line 1, field 'cost'"),
    ("cost-NaN-text", jsonl(cost="NaN"), "line 1, field 'cost'"),
    ("cost-bool", jsonl(cost=True), "line 1, field 'cost'"),
    ("cost-list", jsonl(cost=[1]), "line 1, field 'cost'"),
    ("tokens-negative", jsonl(tokens_in=-1), "line 1, field 'tokens_in'"),
    ("tokens-overflow", jsonl(tokens_out=2**31), "line 1, field 'tokens_out'"),
    ("tokens-fraction", jsonl(tokens_out=1.5), "line 1, field 'tokens_out'"),
    ("tokens-text", jsonl(tokens_in="5"), "line 1, field 'tokens_in'"),
    ("tokens-bool", jsonl(tokens_in=True), "line 1, field 'tokens_in'"),
    ("latency-negative", jsonl(latency_ms=-1), "line 1, field 'latency_ms'"),
    ("latency-text", jsonl(latency_ms="fast"), "line 1, field 'latency_ms'"),
    ("temperature-negative", jsonl(temperature=-0.1), "line 1, field 'temperature'"),
    ("temperature-high", jsonl(temperature=5.01), "line 1, field 'temperature'"),
    ("temperature-text", jsonl(temperature="hot"), "line 1, field 'temperature'"),
    ("repetition-negative", jsonl(repetition=-1), "line 1, field 'repetition'"),
    ("repetition-huge", jsonl(repetition=100_001), "line 1, field 'repetition'"),
    ("repetition-fraction", jsonl(repetition=1.5), "line 1, field 'repetition'"),
    ("repetition-text", jsonl(repetition="3"), "line 1, field 'repetition'"),
    ("status-running", jsonl(status="running"), "line 1, field 'status'"),
    ("status-queued", jsonl(status="queued"), "line 1, field 'status'"),
    ("status-number", jsonl(status=5), "line 1, field 'status'"),
    ("model-empty", jsonl(model=""), "line 1, field 'model'"),
    ("model-blank", jsonl(model="   "), "line 1, field 'model'"),
    ("model-long", jsonl(model="m" * 201), "line 1, field 'model'"),
    ("model-number", jsonl(model=5), "line 1, field 'model'"),
    ("model-missing", jsonl(model=MISSING), "line 1, field 'model'"),
    ("task-id-long", jsonl(task_id="t" * 121), "line 1, field 'task_id'"),
    ("task-id-number", jsonl(task_id=7), "line 1, field 'task_id'"),
    ("category-long", jsonl(category="c" * 61), "line 1, field 'category'"),
    ("difficulty-long", jsonl(difficulty="d" * 31), "line 1, field 'difficulty'"),
    ("end-reason-long", jsonl(end_reason="e" * 41), "line 1, field 'end_reason'"),
    ("suite-long", jsonl(suite="s" * 121), "line 1, field 'suite'"),
    ("suite-world", jsonl(suite_world="mars"), "line 1, field 'suite_world'"),
    ("format", jsonl(format="other/2"), "line 1, field 'format'"),
    ("tool-calls-string", jsonl(tool_calls="lookup"), "line 1, field 'tool_calls'"),
    ("tool-calls-missing", jsonl(tool_calls=MISSING), "line 1, field 'tool_calls'"),
    ("tool-call-string", jsonl(tool_calls=["lookup"]), "line 1, tool_calls[0]: expected an object"),
    ("tool-call-no-name", jsonl(tool_calls=[{"arguments": {}}]), "tool_calls[0], field 'name'"),
    (
        "tool-call-blank-name",
        jsonl(tool_calls=[{"name": " ", "arguments": {}}]),
        "tool_calls[0], field 'name'",
    ),
    (
        "tool-call-arguments-string",
        jsonl(tool_calls=[{"name": "x", "arguments": '{"q": 1}'}]),
        "line 1, tool_calls[0], field 'arguments'",
    ),
    (
        "tool-call-arguments-null",
        jsonl(tool_calls=[{"name": "x", "arguments": None}]),
        "line 1, tool_calls[0], field 'arguments'",
    ),
    (
        "tool-call-malformed-text",
        jsonl(tool_calls=[{"name": "x", "arguments": {}, "malformed": "no"}]),
        "line 1, tool_calls[0], field 'malformed'",
    ),
    ("messages-string", jsonl(messages="hi"), "line 1, field 'messages'"),
    ("message-no-role", jsonl(messages=[{"content": "hi"}]), "messages[0], field 'role'"),
    ("message-role", jsonl(messages=[{"role": "robot"}]), "messages[0], field 'role'"),
    (
        "message-tool-calls",
        jsonl(messages=[{"role": "assistant", "tool_calls": "lookup"}]),
        "messages[0], field 'tool_calls'",
    ),
    ("message-content", jsonl(messages=[{"role": "user", "content": 5}]), "field 'content'"),
    ("correct-text", jsonl(correct="yes"), "line 1, field 'correct'"),
    ("checks-string", jsonl(correctness={"checks": "all"}), "field 'correctness.checks'"),
    (
        "check-passed-text",
        jsonl(correctness={"checks": [{"name": "c", "passed": "yes"}]}),
        "correctness.checks[0], field 'passed'",
    ),
    ("side-effects-strings", jsonl(side_effects=["x"]), "line 1, side_effects[0]"),
    ("final-state-list", jsonl(final_state=[1]), "line 1, field 'final_state'"),
    ("attributes-string", jsonl(attributes="x"), "line 1, field 'attributes'"),
    ("case-number", jsonl(case=5), "line 1, field 'case'"),
    ("record-not-object", b"5\n", "line 1: expected an object, got 5"),
    ("second-line-bad", jsonl() + jsonl(cost=-1), "line 2, field 'cost'"),
    ("not-json", jsonl() + b"{nope}\n", "line 2: not valid JSON"),
    # --- numbers JSON does not hold, nesting, text the database cannot store
    ("NaN", jsonl_text('"latency_ms": NaN'), "line 1, field 'latency_ms': must be a finite"),
    ("Infinity", jsonl_text('"cost": Infinity'), "line 1, field 'cost': must be a finite"),
    ("minus-Infinity", jsonl_text('"temperature": -Infinity'), "field 'temperature'"),
    ("1e400", jsonl_text('"latency_ms": 1e400'), "line 1, field 'latency_ms': must be a finite"),
    (
        "NaN-nested",
        jsonl_text('"final_state": {"a": [1, NaN]}'),
        "field 'final_state.a[1]': must be a finite",
    ),
    ("huge-integer", jsonl_text('"tokens_in": ' + "9" * 5000), "line 1, field 'tokens_in'"),
    ("deep-field", jsonl(final_state={"x": json.loads("[" * 80 + "]" * 80)}), "'final_state.x'"),
    ("deep-100k-json", b"[" * 100_000 + b"]" * 100_000, "nests deeper than 64 levels"),
    ("deep-100k-line", b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n", "line 1: nests"),
    ("not-utf8", b'{"task_id": "caf\xe9", "model": "m", "tool_calls": []}\n', "not UTF-8 text"),
    ("not-utf8-line-2", jsonl() + b"\xff\n", "line 2: not UTF-8 text (invalid byte at position"),
    ("NUL", jsonl(final_response="a\x00b"), "line 1, field 'final_response': contains a NUL"),
    ("NUL-in-key", jsonl(final_state={"a\x00": 1}), "line 1, field 'final_state'"),
    ("NUL-in-message", jsonl(messages=[{"role": "user", "content": "\x00"}]), "'content'"),
    ("lone-surrogate", jsonl_text('"prompt": "\\ud800"'), "line 1, field 'prompt'"),
    # --- the paper's release
    (
        "release-run-index-negative",
        release(setter(1, "traces", 2, "run_index", -1)),
        "cell 1 (task-001 / model-1), trace 2: field 'run_index'",
    ),
    ("release-run-index-huge", release(setter(0, "traces", 0, "run_index", 10**6)), "run_index"),
    ("release-run-index-text", release(setter(0, "traces", 0, "run_index", "0")), "run_index"),
    (
        "release-tokens-negative",
        release(setter(1, "traces", 0, "total_tokens", -3)),
        "trace 0: field 'total_tokens'",
    ),
    (
        "release-tokens-overflow",
        release(setter(1, "traces", 0, "total_tokens", 2**31)),
        "field 'total_tokens'",
    ),
    (
        "release-latency-NaN",
        release(setter(1, "traces", 0, "latency_ms", float("nan"))),
        "trace 0: field 'latency_ms' must be a finite number, got NaN",
    ),
    (
        "release-timestamp-infinite",
        release(setter(1, "traces", 0, "tool_calls", 0, "timestamp", float("inf"))),
        "trace 0, tool_calls[0]: field 'timestamp' must be a finite number",
    ),
    ("release-category-long", release(setter(0, "category", "c" * 61)), "field 'category'"),
    ("release-difficulty-long", release(setter(0, "difficulty", "d" * 31)), "'difficulty'"),
    ("release-task-id-long", release(setter(0, "task_id", "t" * 121)), "cell 0: field 'task_id'"),
    ("release-model-long", release(setter(0, "model", "m" * 201)), "cell 0: field 'model'"),
    (
        "release-tool-calls-string",
        release(setter(1, "traces", 1, "tool_calls", "create_note")),
        "trace 1: field 'tool_calls' must be an array, got a string",
    ),
    (
        "release-arguments-string",
        release(setter(1, "traces", 0, "tool_calls", 0, "arguments", "{}")),
        "cell 1 (task-001 / model-1), trace 0, tool_calls[0]: field 'arguments'",
    ),
    (
        "release-NUL",
        release(setter(1, "traces", 0, "final_response", "\x00")),
        "trace 0: field 'final_response' contains a NUL",
    ),
    # --- PatientAgentBench conversations
    (
        "conversation-tokens-negative",
        conversations(setter(0, "conversation", 1, "usage_metadata", {"input_tokens": -5})),
        "conversation 0 (c0a1f3e2-0001), message 1, field 'usage_metadata.input_tokens'",
    ),
    (
        "conversation-tokens-text",
        conversations(setter(0, "conversation", 1, "usage_metadata", {"output_tokens": "5"})),
        "field 'usage_metadata.output_tokens'",
    ),
    (
        "conversation-tokens-sum-overflow",
        conversations(
            lambda data: [
                message.__setitem__("usage_metadata", {"input_tokens": 2**31 - 1})
                for message in data[0]["conversation"]
            ]
        ),
        "conversation 0 (c0a1f3e2-0001), field 'usage_metadata'",
    ),
    ("conversation-case-id-long", conversations(setter(0, "case_id", "c" * 121)), "'case_id'"),
    ("conversation-model-long", conversations(setter(0, "model", "m" * 201)), "field 'model'"),
    ("conversation-model-number", conversations(setter(0, "model", 5)), "field 'model'"),
    (
        "conversation-complexity-long",
        conversations(setter(0, "scenario", "scenario_complexity", "x" * 31)),
        "field 'scenario.scenario_complexity'",
    ),
    (
        "conversation-tool-calls-string",
        conversations(setter(0, "conversation", 1, "tool_calls", "x")),
        "message 1, field 'tool_calls'",
    ),
    (
        "conversation-content-number",
        conversations(setter(0, "conversation", 0, "content", 5)),
        "message 0, field 'content'",
    ),
    (
        "conversation-type",
        conversations(setter(0, "conversation", 1, "type", "system")),
        "message 1, field 'type'",
    ),
]


@pytest.mark.parametrize(
    ("contents", "expected"),
    [pytest.param(contents, expected, id=name) for name, contents, expected in HOSTILE],
)
def test_hostile_file_gives_one_line_naming_the_place_and_writes_nothing(
    tmp_path, populated, contents, expected
):
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(contents)
    with pytest.raises(CommandError) as raised:
        run_cli("import_traces", str(path))
    message = str(raised.value)
    assert "\n" not in message and len(message) < 400, message
    assert message.startswith(f"{path.name}: ") and message.endswith("Nothing was imported.")
    assert expected in message
    assert counts() == populated


def test_unknown_task_among_known_ones_fails_the_import(tmp_path, office_suite):
    before = counts()
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(
        jsonl(suite=None, task_id="retrieve-001")
        + jsonl(suite=None, task_id="retreive-002")  # a typo
        + jsonl(suite=None, task_id="schedule-001")
    )
    with pytest.raises(CommandError) as raised:
        run_cli("import_traces", str(path))
    assert (
        "line 2, field 'task_id': 'retreive-002' is not a task of suite 'office-19', which "
        "holds 2 of the file's 3 task ids"
    ) in str(raised.value)
    assert counts() == before


def test_a_release_cell_of_an_unknown_task_among_known_ones_names_the_cell(tmp_path, office_suite):
    cell = copy.deepcopy(RELEASE[0])
    known = [{**copy.deepcopy(cell), "task_id": "retrieve-001"}]
    for trace in known[0]["traces"]:
        trace["task_id"] = "retrieve-001"
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(known + [cell]))
    before = counts()
    with pytest.raises(CommandError) as raised:
        run_cli("import_traces", str(path))
    assert f"cell 1 ({cell['task_id']} / {cell['model']}), trace 0: field 'task_id'" in str(
        raised.value
    )
    assert counts() == before


def test_traces_none_of_whose_tasks_are_installed_go_under_the_suite_they_name(
    tmp_path, office_suite
):
    path = tmp_path / "other.jsonl"
    path.write_bytes(jsonl(task_id="a") + jsonl(task_id="b", repetition=1))
    assert "suite hostile-bench (2 new tasks)" in run_cli("import_traces", str(path))
    assert Suite.objects.get(name="hostile-bench").kind == Suite.Kind.IMPORTED


def test_the_same_file_twice_is_refused_unless_again(tmp_path):
    path = tmp_path / "traces.jsonl"
    path.write_bytes(jsonl())
    run_cli("import_traces", str(path))
    first = Run.objects.get()
    assert first.source_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    before = counts()

    copy_path = tmp_path / "renamed.jsonl"  # the bytes count, not the name
    copy_path.write_bytes(path.read_bytes())
    with pytest.raises(CommandError) as raised:
        run_cli("import_traces", str(copy_path))
    message = str(raised.value)
    assert f"is already run {first.pk} (traces.jsonl" in message and "--again" in message
    assert "\n" not in message
    assert counts() == before

    assert "Imported 1 traces" in run_cli("import_traces", str(copy_path), "--again")
    second = Run.objects.exclude(pk=first.pk).get()
    assert second.source_sha256 == first.source_sha256
    path.write_bytes(jsonl(final_response="Something else."))
    assert "Imported 1 traces" in run_cli("import_traces", str(path))  # other bytes: a new file


def test_values_at_the_bounds_are_stored_exactly(tmp_path):
    path = tmp_path / "edges.jsonl"
    path.write_bytes(
        jsonl(
            task_id="t" * 120,
            model="m" * 200,
            category="c" * 60,
            difficulty="d" * 30,
            end_reason="e" * 40,
            cost="99999999.999999",
            tokens_in=2**31 - 1,
            tokens_out=0,
            repetition=100_000,
            temperature=5,
            status="cancelled",
        )
        + jsonl(task_id="t" * 120, model="m" * 200, cost=0.1234567, temperature=0, status="error")
    )
    run_cli("import_traces", str(path))
    top, rounded = Trace.objects.order_by("-repetition")
    assert top.cost == Decimal("99999999.999999") and top.tokens_in == 2**31 - 1
    assert top.repetition == 100_000 and top.temperature == 5.0 and top.status == "cancelled"
    assert len(top.model_name) == 200 and len(top.task.task_id) == 120
    assert rounded.cost == Decimal("0.123457")  # rounded to the column's six places


CONTROL = "bell\x07 esc\x1b del\x7f nel\x85 ls\u2028 ps\u2029 zwsp\u200b tab\t cr\r lf\n end"


def test_control_characters_are_kept_as_text_and_the_pages_render(tmp_path, client, admin_user):
    messages = copy.deepcopy(RECORD["messages"])
    messages[0]["content"] = CONTROL
    messages[1]["tool_calls"][0]["name"] = "look\x01up"
    calls = [{**RECORD["tool_calls"][0], "name": "look\x01up", "arguments": {CONTROL: CONTROL}}]
    path = tmp_path / "control.jsonl"
    record = {
        **RECORD,
        "prompt": CONTROL,
        "model": "m\x1f",
        "final_response": CONTROL,
        "messages": messages,
        "tool_calls": calls,
        "error": CONTROL,
    }
    # Written as export_traces writes (ensure_ascii=False): U+2028 and U+0085 stay raw, and a
    # line is still one record.
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    assert "\u2028" in path.read_text(encoding="utf-8")
    run_cli("import_traces", str(path))
    trace = Trace.objects.get()
    assert trace.final_response == CONTROL and trace.model_name == "m\x1f"
    assert trace.messages[0]["content"] == CONTROL
    assert trace.tool_calls[0]["arguments"] == {CONTROL: CONTROL}
    client.force_login(admin_user)
    for url in (
        reverse("trace_detail", args=[trace.pk]),
        reverse("run_detail", args=[trace.run_id]),
    ):
        assert client.get(url).status_code == 200, url
    out = tmp_path / "again.jsonl"
    run_cli("export_traces", "--run", str(trace.run_id), "--out", str(out))
    run_cli("import_traces", str(out))
    assert Trace.objects.exclude(pk=trace.pk).get().messages == trace.messages


def test_bounds_are_the_columns():
    from patientagentbench.models import Run as RunModel

    def length(model, name):
        return model._meta.get_field(name).max_length

    assert length(Task, "task_id") == schema.TASK_ID_MAX
    assert length(Task, "category") == schema.CATEGORY_MAX
    assert length(Task, "difficulty") == schema.DIFFICULTY_MAX
    assert length(Trace, "model_name") == schema.MODEL_NAME_MAX
    assert length(Trace, "end_reason") == schema.END_REASON_MAX
    assert length(Suite, "name") == schema.SUITE_NAME_MAX
    assert length(RunModel, "label") == schema.RUN_LABEL_MAX
    cost = Trace._meta.get_field("cost")
    assert (cost.max_digits, cost.decimal_places) == (
        schema.COST_MAX_DIGITS,
        schema.COST_DECIMAL_PLACES,
    )
    assert set(schema.FINISHED_STATUSES) == set(Trace.ENDED)
    assert set(schema.WORLDS) == set(Suite.World.values)


# --- any JSON value in any field -------------------------------------------------------------

CASE = generate_case_set(1, seed=3)[0]
CLINIC_RECORD = {
    **RECORD,
    "suite": "hostile-clinic",
    "suite_world": "clinic",
    "task_id": CASE["case_id"],
    "case": CASE,
    "attributes": CASE["attributes"],
    "final_state": {},
    "side_effects": [],
    "correctness": None,  # scored on import, against the case
}
BASES = {
    "jsonl": RECORD,
    "clinic": CLINIC_RECORD,
    "release": RELEASE,
    "conversations": CONVERSATIONS[:1],
}


def paths(value, prefix=()):
    """Every place in a document a value can be put: each key and list item, nested."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key))
        yield (*prefix, "unexpected")
    elif isinstance(value, list):
        for index, item in enumerate(value[:2]):
            yield from paths(item, (*prefix, index))


PATHS = {name: list(paths(base)) for name, base in BASES.items()}

SPECIAL = st.sampled_from(
    [
        "1e30",
        "NaN",
        "-1",
        "",
        " ",
        "x" * 300,
        "\x00",
        "\ud800",
        "done",
        "running",
        "clinic",
        "assistant",
        2**31,
        2**64,
        -1,
        100_001,
        5.000001,
        float("inf"),
        float("nan"),
        1e308,
    ]
)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20) | SPECIAL,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=10,
)


def put(document, path, value):
    if not path:
        return value
    document = copy.deepcopy(document)
    target = document
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return document


@pytest.fixture
def staff_client(client, admin_user):
    client.force_login(admin_user)
    return client


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_json_in_any_field_is_refused_cleanly_or_stored_and_rendered(
    data, tmp_path, staff_client
):
    base = data.draw(st.sampled_from(sorted(BASES)), label="format")
    path = data.draw(st.sampled_from(PATHS[base]), label="path")
    document = put(BASES[base], path, data.draw(JSON_VALUES, label="value"))
    text = json.dumps(document) + ("\n" if base in ("jsonl", "clinic") else "")
    file = tmp_path / "any.json"
    file.write_text(text)
    try:
        summary = import_traces(file, again=True)
    except ImportFormatError as exc:
        assert "\n" not in str(exc)
        event(f"{base}: refused")
        return
    event(f"{base}: stored")
    for trace in summary.run.traces.all():
        assert staff_client.get(reverse("trace_detail", args=[trace.pk])).status_code == 200
    assert staff_client.get(reverse("run_detail", args=[summary.run.pk])).status_code == 200
