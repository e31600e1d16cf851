"""What the ratings tests share."""

from tests.factories import rubric  # noqa: F401  (a fixture)
