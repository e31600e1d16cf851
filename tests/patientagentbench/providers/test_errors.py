"""Retry-After parsing and status classification."""

from email.utils import formatdate

import pytest

from patientagentbench.providers.errors import is_transient_status, parse_retry_after

NOW = 1_800_000_000.0


def clock():
    return NOW


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"Retry-After": formatdate(NOW + 30, usegmt=True)}, 30.0),
        ({"Retry-After": formatdate(NOW - 30, usegmt=True)}, 0.0),
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "-4"}, 0.0),
        ({"Retry-After": "inf"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_parse_retry_after(headers, expected):
    assert parse_retry_after(headers, now=clock) == expected


@pytest.mark.parametrize(
    ("status", "transient"),
    [(400, False), (401, False), (404, False), (408, True), (429, True), (500, True), (529, True)],
)
def test_transient_statuses(status, transient):
    assert is_transient_status(status) is transient
