"""Per-model settings read from the environment: PROVIDER_TIMEOUT_S_<NAME>."""

from __future__ import annotations

from patientagentbench.env import env_floats, env_suffix
from patientagentbench.models import ModelConfig
from patientagentbench.runs.jobs import timeout_for


def test_a_model_configs_name_becomes_the_end_of_a_variable_name():
    assert env_suffix("qwen2.5-7b") == "QWEN2_5_7B"
    assert env_suffix("  Llama 3.1 (local)  ") == "LLAMA_3_1_LOCAL"


def test_per_model_timeouts_are_read_by_suffix(monkeypatch):
    monkeypatch.setenv("PROVIDER_TIMEOUT_S_QWEN2_5_7B", "180")
    monkeypatch.setenv("PROVIDER_TIMEOUT_S_EMPTY", "")
    assert env_floats("PROVIDER_TIMEOUT_S_") == {"QWEN2_5_7B": 180.0}


def test_a_model_without_its_own_timeout_has_the_default(settings):
    settings.PROVIDER_TIMEOUT_S = 60.0
    settings.PROVIDER_TIMEOUTS_S = {"QWEN2_5_7B": 180.0}
    assert timeout_for(ModelConfig(name="qwen2.5-7b")) == 180.0
    assert timeout_for(ModelConfig(name="gpt-4o")) == 60.0
