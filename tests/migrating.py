"""Moving the test database along the migration graph, for tests that write rows before a
migration and read them after it (and back)."""

from __future__ import annotations

import contextlib

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets):
    """Migrate to `targets`; the historical models there, as `apps`."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@contextlib.contextmanager
def back_to_the_latest():
    """Whatever the test does to the schema, the database ends on the newest migrations."""
    try:
        yield
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
