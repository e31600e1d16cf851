"""Researcher URLs (under /research/)."""

urlpatterns: list = []
