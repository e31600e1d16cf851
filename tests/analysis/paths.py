"""Where the tests find the project's fixtures and the shared golden files."""

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
# DESIGN and CI keep the shared files at ../shared beside the project's root.
SHARED = PROJECT_ROOT.parent / "shared"
