"""`seed_demo` says what it is doing as it goes: it takes minutes, and printed nothing until
the end."""

import pytest
from django.core.management import call_command

import jury.demo
import patientagentbench.demo
from patientagentbench.models import Run

pytestmark = pytest.mark.django_db


class Heard:
    """Each line written, with how many runs existed when it was written."""

    def __init__(self):
        self.lines: list[tuple[str, int]] = []

    def write(self, text: str) -> None:
        self.lines.extend((line, Run.objects.count()) for line in text.splitlines() if line)

    def flush(self) -> None:
        pass


def test_seed_demo_prints_each_step_as_it_goes(monkeypatch):
    monkeypatch.setattr(jury.demo, "REPEAT", 1)
    monkeypatch.setattr(patientagentbench.demo, "DEMO_CASE_COUNT", 15)
    heard = Heard()
    call_command("seed_demo", "--repetitions", "1", "--scenario-repetitions", "1", stdout=heard)
    before_any_run = [line for line, runs in heard.lines if runs == 0]
    assert any("3 simulated models" in line for line in before_any_run), heard.lines
    assert any("Playing the demo run: office-19 × 3 models × 1" in line for line in before_any_run)
    # Each run is announced before it exists, and its counts said once it has finished.
    scenario = next(runs for line, runs in heard.lines if "demo scenario run: 15 cases" in line)
    assert scenario == 1
    assert any("conversations" in line and runs == 2 for line, runs in heard.lines)
    assert heard.lines[-1][0].startswith("Demo users:")
