"""backup_data / restore_data: a deployment's data round-trips with equal counts and checksums."""

import json
import shutil
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

import jury.demo
import patientagentbench.demo
from config.backups import MANIFEST_FILE, manifest

pytestmark = pytest.mark.django_db(transaction=True)


def run_cli(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def deployment(monkeypatch):
    """Demo users, runs, traces, review studies with scores and jury verdicts."""
    # A small demo: 15 cases, not 60, and one reading per judge, not two. Every kind of row is
    # still there (checked below); the full demo (180 conversations, 1,080 judge jobs) proves
    # nothing more here and was most of this test's time (35 s, now 13 s).
    monkeypatch.setattr(jury.demo, "REPEAT", 1)
    monkeypatch.setattr(patientagentbench.demo, "DEMO_CASE_COUNT", 15)
    run_cli("seed_demo", "--repetitions", "1", "--scenario-repetitions", "1")
    counts = manifest()
    for label in (
        "patientagentbench.Trace",
        "annotation.Study",
        "annotation.Submission",  # clinicians' scores
        "jury.Verdict",
        "auth.User",
    ):
        assert counts[label]["count"] > 0, label
    return counts


def empty_the_database():
    call_command("flush", interactive=False, verbosity=0)
    assert all(entry["count"] == 0 for entry in manifest().values())


@pytest.mark.slow
def test_backup_and_restore_round_trip_with_equal_counts_and_checksums(deployment, tmp_path):
    """One seeded deployment (seeding takes most of the time) for every restore case."""
    backup = tmp_path / "backup"
    assert "Backed up" in run_cli("backup_data", str(backup))
    assert json.loads((backup / MANIFEST_FILE).read_text()) == deployment

    with pytest.raises(CommandError, match="already holds data"):
        run_cli("restore_data", str(backup))
    assert manifest() == deployment

    tampered = tmp_path / "tampered"
    shutil.copytree(backup, tampered)
    changed = json.loads((tampered / MANIFEST_FILE).read_text())
    changed["patientagentbench.Trace"]["count"] += 1
    (tampered / MANIFEST_FILE).write_text(json.dumps(changed))
    empty_the_database()
    with pytest.raises(CommandError, match="patientagentbench.Trace; nothing was restored"):
        run_cli("restore_data", str(tampered))
    assert all(entry["count"] == 0 for entry in manifest().values())

    printed = run_cli("restore_data", str(backup))

    assert "counts and checksums match" in printed
    assert manifest() == deployment


def test_backup_refuses_a_directory_in_use(tmp_path):
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "file").write_text("x")
    with pytest.raises(CommandError, match="not empty"):
        run_cli("backup_data", str(tmp_path / "old"))


def test_restore_refuses_a_directory_without_a_backup(tmp_path):
    with pytest.raises(CommandError, match="holds no backup"):
        run_cli("restore_data", str(tmp_path))
