"""How long a test waits for what it checks. A deadline only guards against a hang; the test
waits on the condition itself (a job state, a port, a log line, a Playwright `expect`), so on a
busy machine the deadline may stretch without the test meaning anything else:
`PAB_TEST_PATIENCE=4` (what `make test-under-load` sets) makes every guard four times as long.
"""

from __future__ import annotations

import os

PATIENCE = max(1.0, float(os.environ.get("PAB_TEST_PATIENCE") or 1))


def patient(seconds: float) -> float:
    """A deadline of `seconds` on a quiet machine, stretched by the patience asked for."""
    return seconds * PATIENCE
