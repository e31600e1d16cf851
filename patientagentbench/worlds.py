"""Which sandbox a suite runs in. Every trace gets a fresh world."""

from __future__ import annotations

from sandbox.office import OfficeWorld


class NoWorld(Exception):
    pass


def build_world(suite):
    if suite.world == "office":
        return OfficeWorld.from_suite({"environment": suite.environment, "tools": suite.tools})
    raise NoWorld(f"Suite {suite.name!r} has no sandbox to run in (world={suite.world!r}).")
