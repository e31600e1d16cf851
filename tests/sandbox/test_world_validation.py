"""The shared World machinery: schema validation and a `call` that never raises."""

import json

import pytest

from sandbox.base import StateChange, ToolError, ToolResult, World

SCHEMAS = [
    {
        "name": "record",
        "description": "Every argument type the validator knows.",
        "parameters": {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "count": {"type": "integer"},
                "amount": {"type": "number"},
                "flag": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "extra": {
                    "type": "object",
                    "properties": {"level": {"type": "string", "enum": ["low", "high"]}},
                    "required": ["level"],
                },
                "optional_note": {"type": ["string", "null"]},
            },
            "required": ["text", "count"],
        },
    },
    {"name": "no_arguments", "description": "Takes nothing.", "parameters": {"type": "object"}},
    {"name": "explode", "description": "A buggy tool.", "parameters": {"type": "object"}},
    {"name": "refuse", "description": "An expected failure.", "parameters": {"type": "object"}},
    {"name": "unserialisable", "description": "Returns a set.", "parameters": {"type": "object"}},
    {"name": "read", "description": "Returns live state.", "parameters": {"type": "object"}},
]


def record(state, args):
    state["records"].append(args)
    return StateChange(
        result={"stored": len(state["records"])}, side_effect={"kind": "recorded", **args}
    )


class ToyWorld(World):
    tools = {
        "record": record,
        "no_arguments": lambda state, args: {"arguments": args},
        "explode": lambda state, args: 1 / 0,
        "refuse": lambda state, args: (_ for _ in ()).throw(ToolError("Not today.")),
        "unserialisable": lambda state, args: {1, 2},
        "read": lambda state, args: state["records"],
    }


@pytest.fixture
def toy_world():
    return ToyWorld({"records": []}, SCHEMAS)


def error_of(result: ToolResult) -> str:
    assert result.status == "error"
    assert set(result.content) == {"error"}
    return result.content["error"]


VALID = {"text": "hello", "count": 3}


def test_valid_call_succeeds(toy_world):
    result = toy_world.call(
        "record", dict(VALID, amount=2, flag=True, tags=["a"], extra={"level": "low"})
    )
    assert result == ToolResult("ok", {"stored": 1})


# --- names and argument containers --------------------------------------------------------------


def test_unknown_tool_names_the_available_ones(toy_world):
    message = error_of(toy_world.call("delete_everything", {}))
    assert "Unknown tool 'delete_everything'" in message
    assert "record" in message and "no_arguments" in message


@pytest.mark.parametrize("name", [None, 7, ["record"]])
def test_non_text_tool_name_is_an_unknown_tool(toy_world, name):
    assert "Unknown tool" in error_of(toy_world.call(name, {}))


@pytest.mark.parametrize(
    ("arguments", "got"), [(None, "null"), ("{}", "string"), ([VALID], "array"), (3, "integer")]
)
def test_arguments_that_are_not_an_object_are_refused(toy_world, arguments, got):
    message = error_of(toy_world.call("record", arguments))
    assert message == f"Arguments for 'record' must be a JSON object, got {got}"


def test_tool_without_parameters_takes_an_empty_object(toy_world):
    assert toy_world.call("no_arguments", {}) == ToolResult("ok", {"arguments": {}})


# --- schema validation --------------------------------------------------------------------------


def test_missing_required_arguments_are_each_named(toy_world):
    message = error_of(toy_world.call("record", {}))
    assert "Invalid arguments for 'record'" in message
    assert "missing required argument 'text'" in message
    assert "missing required argument 'count'" in message


def test_unknown_arguments_are_named_with_the_allowed_ones(toy_world):
    message = error_of(toy_world.call("record", dict(VALID, colour="red", size=2)))
    assert "unknown argument 'colour', 'size'" in message
    assert "allowed: amount, count, extra, flag, optional_note, tags, text" in message


def test_unknown_argument_on_a_tool_without_properties(toy_world):
    assert "unknown argument 'x' (allowed: none)" in error_of(
        toy_world.call("no_arguments", {"x": 1})
    )


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("text", 5, "argument 'text' must be a string, got integer"),
        ("count", "3", "argument 'count' must be an integer, got string"),
        ("count", 3.5, "argument 'count' must be an integer, got number"),
        ("count", True, "argument 'count' must be an integer, got boolean"),
        ("amount", "2", "argument 'amount' must be a number, got string"),
        ("amount", False, "argument 'amount' must be a number, got boolean"),
        ("flag", "yes", "argument 'flag' must be a boolean, got string"),
        ("flag", 1, "argument 'flag' must be a boolean, got integer"),
        ("tags", "a,b", "argument 'tags' must be an array, got string"),
        ("tags", ["a", 2], "argument 'tags[1]' must be a string, got integer"),
        ("extra", [], "argument 'extra' must be an object, got array"),
        ("extra", {}, "missing required argument 'extra.level'"),
        ("extra", {"level": "mid"}, 'argument \'extra.level\' must be one of: "low", "high"'),
        ("extra", {"level": "low", "x": 1}, "unknown argument 'extra.x'"),
        ("optional_note", 3, "argument 'optional_note' must be a string or null, got integer"),
    ],
)
def test_mistyped_arguments_are_explained(toy_world, key, value, words):
    assert words in error_of(toy_world.call("record", dict(VALID, **{key: value})))


def test_integers_are_numbers(toy_world):
    assert toy_world.call("record", dict(VALID, amount=2)).status == "ok"


def test_null_for_an_optional_argument_means_not_given(toy_world):
    assert toy_world.call("record", dict(VALID, amount=None, tags=None)).status == "ok"
    assert "amount" not in toy_world.final_state()["records"][0]


def test_null_for_a_required_argument_is_an_error(toy_world):
    assert "argument 'text' must be a string, got null" in error_of(
        toy_world.call("record", dict(VALID, text=None))
    )


def test_a_refused_call_changes_nothing(toy_world):
    toy_world.call("record", {"text": 1})
    assert toy_world.final_state() == {"records": []}
    assert toy_world.side_effects == []


# --- failures inside tools ----------------------------------------------------------------------


def test_exception_inside_a_tool_becomes_an_error(toy_world):
    assert (
        error_of(toy_world.call("explode", {}))
        == "Tool 'explode' failed: ZeroDivisionError: division by zero"
    )
    assert toy_world.call("record", VALID).status == "ok"


def test_tool_error_message_goes_to_the_agent(toy_world):
    assert error_of(toy_world.call("refuse", {})) == "Not today."


def test_unserialisable_result_becomes_an_error(toy_world):
    assert "Tool 'unserialisable' failed: TypeError" in error_of(
        toy_world.call("unserialisable", {})
    )


# --- side effects and state ---------------------------------------------------------------------


def test_side_effects_are_logged_in_order(toy_world):
    toy_world.call("record", {"text": "first", "count": 1})
    toy_world.call("no_arguments", {})
    toy_world.call("record", {"text": "second", "count": 2})
    assert toy_world.side_effects == [
        {"kind": "recorded", "text": "first", "count": 1},
        {"kind": "recorded", "text": "second", "count": 2},
    ]


def test_side_effects_and_final_state_are_copies(toy_world):
    toy_world.call("record", dict(VALID))
    toy_world.side_effects.clear()
    toy_world.final_state()["records"].clear()
    assert len(toy_world.side_effects) == 1
    assert len(toy_world.final_state()["records"]) == 1


def test_tools_never_keep_the_callers_objects(toy_world):
    arguments = {"text": "hello", "count": 1, "tags": ["a"]}
    toy_world.call("record", arguments)
    arguments["tags"].append("changed later")
    assert toy_world.final_state()["records"][0]["tags"] == ["a"]


def test_results_never_hand_out_live_state(toy_world):
    toy_world.call("record", dict(VALID))
    toy_world.call("read", {}).content.append("injected")
    assert len(toy_world.final_state()["records"]) == 1


def test_initial_state_is_copied():
    state = {"records": []}
    ToyWorld(state, SCHEMAS).call("record", dict(VALID))
    assert state == {"records": []}


def test_tool_schemas_are_copies_in_order(toy_world):
    schemas = toy_world.tool_schemas()
    assert [schema["name"] for schema in schemas] == [schema["name"] for schema in SCHEMAS]
    schemas[0]["parameters"]["required"].append("flag")
    assert toy_world.call("record", VALID).status == "ok"


def test_a_schema_without_an_implementation_is_a_construction_error():
    with pytest.raises(ValueError, match="no implementation for: \\['missing'\\]"):
        ToyWorld({}, [*SCHEMAS, {"name": "missing", "description": "", "parameters": {}}])


# --- ToolResult ---------------------------------------------------------------------------------


def test_tool_result_text_is_compact_json():
    result = ToolResult.ok({"city": "Zürich", "temps": [1, 2.5]})
    assert result.as_text() == '{"city":"Zürich","temps":[1,2.5]}'
    assert json.loads(result.as_text()) == result.content


def test_tool_result_error_shape():
    result = ToolResult.error("Nope.")
    assert result.is_error
    assert result.to_dict() == {"status": "error", "content": {"error": "Nope."}}


def test_tool_result_status_is_checked():
    with pytest.raises(ValueError, match="status"):
        ToolResult("maybe", {})
