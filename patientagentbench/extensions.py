"""Where the apps above the pipeline (jury, annotation) put themselves on the pipeline's pages.

The pipeline names none of them, by import or by URL name (tests/test_layers.py), so an app
that wants a button on the run page, or to be where one of its roles lands after login,
registers it here from its `AppConfig.ready()`. Without the app installed the page simply has
no such button. Plain data: registering the same thing twice keeps one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunAction:
    label: str
    url_name: str  # reversed with the run's pk


_run_actions: dict[str, RunAction] = {}  # url name -> action, in registration order
_landings: dict[str, str] = {}  # role -> URL name (no arguments)
_deviation_actions: dict[str, RunAction] = {}  # shown beside a run's deviating traces


def add_run_action(label: str, url_name: str) -> None:
    """A button on every run's page, linking to `url_name` reversed with the run's pk."""
    _run_actions[url_name] = RunAction(label, url_name)


def run_actions() -> tuple[RunAction, ...]:
    return tuple(_run_actions.values())


def add_deviation_action(label: str, url_name: str) -> None:
    """A button beside a run's traces that left their reference (the monitor), linking to
    `url_name` reversed with the run's pk."""
    _deviation_actions[url_name] = RunAction(label, url_name)


def deviation_actions() -> tuple[RunAction, ...]:
    return tuple(_deviation_actions.values())


def set_landing(role: str, url_name: str) -> None:
    """Where a user holding `role` (and no staff role) lands on the home page."""
    _landings[role] = url_name


def landings() -> tuple[tuple[str, str], ...]:
    return tuple(_landings.items())
