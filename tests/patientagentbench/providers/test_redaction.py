"""Secrets never reach a stored error or a page: key- and token-shaped text is redacted, an
api_key_env that is a key is refused, and an unset key variable is named, not papered over."""

import string
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from patientagentbench.models import ModelConfig
from patientagentbench.providers.redaction import MASK, looks_like_a_key, redact
from patientagentbench.runs import execution
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.views.forms import ModelConfigForm
from tests.fakes.llm_server import OPENAI, FakeLLMServer, error_reply

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


def random_part(alphabet=ALNUM, min_size=20):
    # Keys are random: at least one digit and one letter, as any real key has.
    return (
        st.text(alphabet=alphabet, min_size=min_size, max_size=60)
        .filter(lambda s: any(c.isdigit() for c in s))
        .filter(lambda s: any(c.isalpha() for c in s))
    )


secrets = st.one_of(
    random_part().map(lambda s: ("sk-" + s, s)),
    random_part().map(lambda s: ("sk-proj-" + s, s)),
    random_part(ALNUM + "-_").map(lambda s: ("sk-ant-api03-" + s, s)),
    random_part(ALNUM + "-._~+/").map(lambda s: ("Bearer " + s, s)),
    random_part(HEX, 32).map(lambda s: ("api_key=" + s, s)),
    random_part(ALNUM, 16).map(lambda s: ('"x-api-key": "' + s + '"', s)),
    random_part(ALNUM + "-_", 16).map(lambda s: ("token: " + s, s)),
    random_part(HEX, 32).map(lambda s: (s, s)),  # a bare long hex token
)
surrounding = st.text(max_size=80)


@settings(max_examples=300, deadline=None)
@given(secret=secrets, before=surrounding, after=surrounding)
def test_a_secret_in_any_text_is_redacted(secret, before, after):
    shown, value = secret
    assume(value not in before and value not in after)
    text = f"{before} {shown} {after}"
    redacted = redact(text)
    assert value not in redacted
    assert MASK in redacted


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_redaction_is_idempotent(text):
    once = redact(text)
    assert redact(once) == once


words = st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=12)
separators = st.sampled_from([" ", ", ", ": ", ". ", " = ", "\n", " (", ") "])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(words, separators), max_size=30), st.integers(0, 10**6))
def test_ordinary_error_text_is_left_alone(parts, number):
    """Words (including "key" and "token") and short numbers are not secrets."""
    text = "".join(word + sep for word, sep in parts) + f"HTTP 401 after {number} tokens"
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "Incorrect API key provided: sk-proj-AbC123dEf456GhI789. You can find your API key at",
        '{"error": "echo", "headers": {"Authorization": "Bearer tg-9f8e7d6c5b4a3928"}}',
        "x-api-key header sk-ant-api03-Zy9_xW8-vU7tS6 is invalid",
        "GET /v1/models?key=AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q failed",
        "Basic dXNlcjpzM2NyZXQ= rejected",
    ],
)
def test_real_looking_error_bodies(text):
    redacted = redact(text)
    for secret in (
        "AbC123dEf456GhI789",
        "tg-9f8e7d6c5b4a3928",
        "Zy9_xW8",
        "AIzaSy",
        "dXNlcjpzM2NyZXQ",
    ):
        assert secret not in redacted


@pytest.mark.parametrize(
    "value",
    ["OPENAI_API_KEY", "TOGETHER_API_KEY", "ANTHROPIC_API_KEY", "my_local_key", "HF_TOKEN"],
)
def test_variable_names_are_not_keys(value):
    assert not looks_like_a_key(value)


@pytest.mark.parametrize(
    "value",
    [
        "sk-proj-AbC123dEf456",
        "sk-ant-api03-abcdef123456",
        "0123456789abcdef0123456789abcdef",  # passes a check for "letters, digits, _"
        "tgp1a2b3c4d5e6f7g8h9i0j",
        "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5",
    ],
)
def test_keys_are_recognised(value):
    assert looks_like_a_key(value)


# --- where it matters --------------------------------------------------------------------


@pytest.mark.django_db
def test_a_stub_echoing_the_key_does_not_put_it_on_the_trace_page(
    office_suite, monkeypatch, client, admin_user
):
    key = "sk-live-9f8e7d6c5b4a39281706abcdef"
    monkeypatch.setenv("PAB_ECHO_KEY", key)
    with FakeLLMServer() as server:
        server.script(OPENAI, error_reply(401, f"bad credentials: Authorization: Bearer {key}"))
        model = ModelConfig.objects.create(
            name="echo",
            provider="openai_compatible",
            model_id="echo",
            base_url=server.openai_base_url,
            api_key_env="PAB_ECHO_KEY",
        )
        tasks = list(office_suite.tasks.filter(task_id="retrieve-001"))
        run = launch_run(
            suite=office_suite, models=[model], tasks=tasks, repetitions=1, enqueue=False
        )
        execute_inline(run)
    trace = run.traces.get()
    assert trace.status == "error" and "401" in trace.error
    assert key not in trace.error and MASK in trace.error
    client.force_login(admin_user)
    page = client.get(reverse("trace_detail", args=[trace.pk])).content.decode()
    assert key not in page


@pytest.mark.django_db
def test_any_error_kept_on_a_trace_is_redacted(office_suite, sim_models, monkeypatch):
    def broken_world(suite, task=None):
        raise RuntimeError("could not load: Authorization: Bearer abcdEFGH1234ijklMNOP5678")

    monkeypatch.setattr(execution, "build_world", broken_world)
    tasks = list(office_suite.tasks.filter(task_id="retrieve-001"))
    run = launch_run(
        suite=office_suite, models=sim_models[:1], tasks=tasks, repetitions=1, enqueue=False
    )
    execute_inline(run)
    error = run.traces.get().error
    assert "abcdEFGH1234" not in error and "RuntimeError" in error


MODEL_FIELDS = {
    "name": "m",
    "provider": "openai_compatible",
    "model_id": "x",
    "base_url": "http://127.0.0.1:1/v1",
    "price_in": "0",
    "price_out": "0",
    "max_concurrency": "8",
    "max_output_tokens": "2048",
    "enabled": "on",
}


@pytest.mark.django_db
@pytest.mark.parametrize(
    "value", ["sk-proj-AbC123dEf456", "0123456789abcdef0123456789abcdef", "tgp1a2b3c4d5e6f7g8h9i0j"]
)
def test_the_model_form_refuses_a_key_in_place_of_a_variable_name(value):
    form = ModelConfigForm({**MODEL_FIELDS, "api_key_env": value})
    assert not form.is_valid()
    assert "not the key itself" in str(form.errors["api_key_env"])
    assert value not in str(form.errors)  # never echoed back


@pytest.mark.django_db
def test_the_model_form_takes_a_variable_name():
    form = ModelConfigForm({**MODEL_FIELDS, "api_key_env": "TOGETHER_API_KEY"})
    assert form.is_valid(), form.errors


@pytest.mark.django_db
def test_add_model_refuses_a_key_and_never_stores_it():
    key = "0123456789abcdef0123456789abcdef"
    with pytest.raises(CommandError) as refused:
        call_command(
            "add_model",
            "m",
            "--provider",
            "openai_compatible",
            "--model",
            "x",
            "--base-url",
            "http://127.0.0.1:1/v1",
            "--api-key-env",
            key,
            stdout=StringIO(),
        )
    assert key not in str(refused.value)
    assert not ModelConfig.objects.filter(name="m").exists()


@pytest.mark.django_db
def test_an_unset_key_variable_is_named_and_nothing_is_sent(office_suite, monkeypatch):
    monkeypatch.delenv("PAB_UNSET_TOGETHER_KEY", raising=False)
    with FakeLLMServer() as server:
        model = ModelConfig.objects.create(
            name="together",
            provider="openai_compatible",
            model_id="llama",
            base_url=server.openai_base_url,
            api_key_env="PAB_UNSET_TOGETHER_KEY",
        )
        tasks = list(office_suite.tasks.filter(task_id="retrieve-001"))
        run = launch_run(
            suite=office_suite, models=[model], tasks=tasks, repetitions=1, enqueue=False
        )
        execute_inline(run)
        assert server.requests == []
    error = run.traces.get().error
    assert "PAB_UNSET_TOGETHER_KEY is not set" in error
