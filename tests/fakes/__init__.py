"""Test doubles shared across test packages (fake LLM server, …)."""
