"""call_with_retries: pure backoff logic, then 429-then-success through the real SDK."""

import pytest

from patientagentbench.providers.openai_chat import OpenAIChatProvider
from patientagentbench.providers.retry import backoff_delay, call_with_retries
from patientagentbench.providers.types import (
    CallContext,
    Message,
    ProviderError,
    TransientProviderError,
)
from tests.fakes.llm_server import OPENAI, error_reply, text_reply


class FakeSleep:
    def __init__(self):
        self.waits = []

    def __call__(self, seconds):
        self.waits.append(seconds)


class Flaky:
    """Fails with the given errors in order, then returns "ok"."""

    def __init__(self, *errors):
        self.errors = list(errors)
        self.calls = 0

    def __call__(self):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


def transient(retry_after=None):
    return TransientProviderError("busy", retry_after=retry_after, status=503)


def test_returns_at_once_when_the_first_call_succeeds():
    sleep = FakeSleep()

    assert call_with_retries(Flaky(), sleep=sleep) == "ok"
    assert sleep.waits == []


def test_backoff_doubles_up_to_the_cap_at_full_jitter_ceiling():
    sleep = FakeSleep()
    fn = Flaky(*(transient() for _ in range(6)))

    result = call_with_retries(
        fn, max_attempts=7, base_delay=1.0, max_delay=10.0, sleep=sleep, rng=lambda: 1.0
    )

    assert result == "ok"
    assert sleep.waits == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


def test_jitter_scales_the_ceiling():
    sleep = FakeSleep()

    call_with_retries(Flaky(transient(), transient()), sleep=sleep, rng=lambda: 0.25)

    assert sleep.waits == [0.25, 0.5]


def test_retry_after_is_a_floor_not_a_ceiling():
    assert backoff_delay(1, 5.0, 1.0, 60.0, rng=lambda: 0.0) == 5.0
    assert backoff_delay(6, 5.0, 1.0, 60.0, rng=lambda: 1.0) == 32.0


def test_gives_up_after_max_attempts_with_the_last_error():
    sleep = FakeSleep()
    errors = [transient() for _ in range(3)]
    fn = Flaky(*errors)

    with pytest.raises(TransientProviderError) as caught:
        call_with_retries(fn, max_attempts=3, sleep=sleep, rng=lambda: 0.5)

    assert caught.value is errors[-1]
    assert fn.calls == 3
    assert len(sleep.waits) == 2


def test_permanent_errors_are_not_retried():
    sleep = FakeSleep()
    fn = Flaky(ProviderError("bad request"))

    with pytest.raises(ProviderError):
        call_with_retries(fn, sleep=sleep)

    assert fn.calls == 1
    assert sleep.waits == []


def test_an_excessive_retry_after_is_raised_instead_of_slept():
    sleep = FakeSleep()
    fn = Flaky(transient(retry_after=86400))

    with pytest.raises(TransientProviderError):
        call_with_retries(fn, sleep=sleep, max_retry_after=600)

    assert sleep.waits == []


def test_max_attempts_must_be_positive():
    with pytest.raises(ValueError):
        call_with_retries(Flaky(), max_attempts=0)


def test_429_then_success_waits_what_the_server_asked(llm_server):
    llm_server.script(
        OPENAI,
        error_reply(429, "slow down", headers={"Retry-After": "3"}),
        text_reply("Recovered."),
    )
    provider = OpenAIChatProvider("gpt-test", "sk", base_url=llm_server.openai_base_url)
    messages = [Message(role="user", content="Hello")]
    sleep = FakeSleep()

    completion = call_with_retries(
        lambda: provider.complete(messages, [], 1.0, CallContext()),
        sleep=sleep,
        rng=lambda: 0.0,
    )

    assert completion.text == "Recovered."
    assert sleep.waits == [3.0]
    assert len(llm_server.requests) == 2


# --- a provider rate-limiting for a while ---------------------------------------------------


class FakeClock:
    """Time advances only by what the retry loop sleeps."""

    def __init__(self):
        self.now = 0.0

    def sleep(self, seconds):
        self.now += seconds

    def __call__(self):
        return self.now


def rate_limited(seconds, clock):
    """429 until `seconds` have passed on `clock`, then "ok"."""

    def call():
        if clock() < seconds:
            raise TransientProviderError("slow down", status=429)
        return "ok"

    return call


def test_a_minute_of_429s_is_waited_out_not_counted_as_attempts():
    clock = FakeClock()
    result = call_with_retries(
        rate_limited(60, clock),
        max_attempts=3,
        rate_limit_patience=300,
        sleep=clock.sleep,
        clock=clock,
        rng=lambda: 1.0,
    )
    assert result == "ok" and 60 <= clock.now < 60 + 60  # backoff is capped at a minute


def test_rate_limiting_longer_than_the_patience_ends_with_the_429():
    clock = FakeClock()
    with pytest.raises(TransientProviderError, match="slow down"):
        call_with_retries(
            rate_limited(10_000, clock),
            rate_limit_patience=120,
            sleep=clock.sleep,
            clock=clock,
            rng=lambda: 1.0,
        )
    assert 120 <= clock.now < 120 + 60


def test_without_patience_429s_count_as_attempts_as_before():
    clock = FakeClock()
    with pytest.raises(TransientProviderError):
        call_with_retries(rate_limited(60, clock), max_attempts=3, sleep=clock.sleep, clock=clock)
