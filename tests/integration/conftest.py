import pytest

from patientagentbench.models import ModelConfig
from tests.fakes.llm_server import FakeLLMServer
from tests.integration.workers import DEAD_AFTER_S, Workers


@pytest.fixture
def workers(tmp_path, settings):
    settings.WORKER_DEAD_AFTER_S = DEAD_AFTER_S  # this process judges heartbeats alike
    started = Workers(tmp_path)
    yield started
    started.stop_all()


@pytest.fixture
def slow_model(db):
    with FakeLLMServer(latency=0.25) as server:
        yield ModelConfig.objects.create(
            name="slowish",
            provider="openai_compatible",
            model_id="slowish",
            base_url=server.openai_base_url,
            max_concurrency=32,
        )
