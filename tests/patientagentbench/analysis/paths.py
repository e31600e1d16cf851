"""Where the tests find the project's fixtures, including copies of the shared golden files."""

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[3]
# Copies of ../shared/golden: the project must test on a clone that has no ../shared beside it.
GOLDEN = PROJECT_ROOT / "fixtures" / "golden"
