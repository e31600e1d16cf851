"""Which sandbox a suite runs in. Every trace gets a fresh world."""

from __future__ import annotations

from patientagentbench.models import Suite
from sandbox.office import OfficeWorld


class NoWorld(Exception):
    pass


def build_world(suite, task=None):
    if suite.world == Suite.World.CLINIC:
        from sandbox.clinic import ClinicWorld

        return ClinicWorld.from_case(task.case)
    if suite.world == Suite.World.OFFICE:
        return OfficeWorld.from_suite({"environment": suite.environment, "tools": suite.tools})
    raise NoWorld(f"Suite {suite.name!r} has no sandbox to run in (world={suite.world!r}).")
