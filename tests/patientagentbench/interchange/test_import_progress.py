"""The progress a reader reports (issue 34, finding 3): the background import's status page
shows "conversations read of the file's total" from these calls, so the count must only
grow, the total must be the file's number of records from the first call, and the last call
must say every record was read."""

import json

from hypothesis import given
from hypothesis import strategies as st

from patientagentbench.interchange.jsonl import parse_jsonl
from tests.patientagentbench.interchange.test_import_validation import RECORD

BLANKS = st.sampled_from(["", " ", "\t", "\r"])


@given(layout=st.lists(st.one_of(st.just("record"), BLANKS), min_size=1, max_size=40))
def test_progress_counts_every_record_once_up_to_the_files_total(layout):
    if "record" not in layout:
        layout = [*layout, "record"]
    lines = [
        json.dumps({**RECORD, "repetition": i}) if kind == "record" else kind
        for i, kind in enumerate(layout)
    ]
    calls = []
    records = parse_jsonl("\n".join(lines), lambda read, total: calls.append((read, total)))
    n = layout.count("record")
    assert len(records) == n
    assert [read for read, _ in calls] == list(range(1, n + 1))
    assert {total for _, total in calls} == {n}
