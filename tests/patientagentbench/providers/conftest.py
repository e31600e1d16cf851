"""What the provider tests share."""

from tests.fakes.llm_server import llm_server  # noqa: F401  (a fixture)
