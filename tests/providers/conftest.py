import pytest

from tests.fakes.llm_server import FakeLLMServer


@pytest.fixture
def llm_server():
    with FakeLLMServer() as server:
        yield server
