"""Install task suites from fixtures/suites/*.json into the database."""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.db import transaction

from patientagentbench.models import Suite, Task
from patientagentbench.prompts import OFFICE_SYSTEM_PROMPT

SUITES_DIR = Path(settings.BASE_DIR) / "fixtures" / "suites"


def install_suite_file(path: Path) -> Suite:
    data = json.loads(path.read_text())
    return install_suite_data(data)


@transaction.atomic
def install_suite_data(data: dict) -> Suite:
    """Create or refresh a suite. Task rows are updated in place so traces keep their tasks."""
    suite, _ = Suite.objects.update_or_create(
        name=data["suite"],
        defaults={
            "kind": Suite.Kind.TASK,
            "world": data.get("world", Suite.World.OFFICE),
            "system_prompt": data.get("system_prompt", OFFICE_SYSTEM_PROMPT),
            "tools": data["tools"],
            "environment": data["environment"],
            "source": data.get("source", ""),
        },
    )
    criteria = data.get("correctness_criteria", {})
    # A suite may name the pass rule its criteria were written for (office-19: the paper's).
    rule = {"pass_rule": data["correctness_rule"]} if "correctness_rule" in data else {}
    # One INSERT … ON CONFLICT for the tasks (19 reads and writes each was most of an install).
    Task.objects.bulk_create(
        [
            Task(
                suite=suite,
                task_id=task["id"],
                category=task.get("category", ""),
                difficulty=task.get("difficulty", ""),
                prompt=task["task"],
                expected_tools=task.get("expected_tools", []),
                criteria={**criteria[task["id"]], **rule} if task["id"] in criteria else {},
            )
            for task in data["tasks"]
        ],
        update_conflicts=True,
        unique_fields=["suite", "task_id"],
        update_fields=["category", "difficulty", "prompt", "expected_tools", "criteria"],
    )
    return suite


def install_all_suites() -> list[Suite]:
    return [install_suite_file(path) for path in sorted(SUITES_DIR.glob("*.json"))]
