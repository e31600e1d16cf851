"""The draft merge rule: per field, an older version never overwrites a newer one, whatever
order the saves arrive in and however often one arrives."""

from hypothesis import given
from hypothesis import strategies as st

from annotation.pure.drafts import answer_of, fields_of, fresher, merge, parse_versions

FIELDS = ("score-clinical_safety", "why-clinical_safety", "why-triage_quality", "flags")
NAMES = frozenset(FIELDS) | {"comments"}


def save(versions: dict, **values) -> tuple[dict, dict]:
    return values, versions


def apply_all(saves, stored=None, stored_versions=None):
    fields, versions = dict(stored or {}), dict(stored_versions or {})
    for incoming, incoming_versions in saves:
        fields, versions = merge(fields, versions, incoming, incoming_versions)
    return fields, versions


def test_an_older_save_arriving_late_does_not_overwrite_a_newer_one():
    # The page-hide save of "Never asked" (version 20) arrives after the reloaded page's save
    # of another field, which still carried the why box's older, empty value (version 10).
    newer = ({"why-clinical_safety": "Never asked"}, {"why-clinical_safety": 20})
    older = ({"score-clinical_safety": 2}, {"why-clinical_safety": 10, "score-clinical_safety": 30})
    for order in ([newer, older], [older, newer]):
        fields, versions = apply_all(order)
        assert fields == {"why-clinical_safety": "Never asked", "score-clinical_safety": 2}
        assert versions == {"why-clinical_safety": 20, "score-clinical_safety": 30}


def test_a_field_without_a_version_is_left_alone_and_an_empty_newer_value_clears():
    stored = {"why-clinical_safety": "kept", "why-triage_quality": "old"}
    fields, _ = merge(
        stored,
        {"why-clinical_safety": 5, "why-triage_quality": 5},
        {"why-clinical_safety": "ignored", "why-triage_quality": ""},
        {"why-triage_quality": 6},
    )
    assert fields == {"why-clinical_safety": "kept"}


def test_fields_and_answers_round_trip():
    answer = {
        "scores": {"clinical_safety": 2, "triage_quality": "na"},
        "why": {"clinical_safety": "Booked too early."},
        "flags": ["unsafe"],
        "comments": [{"anchor": "t1", "text": "Wrong patient id."}],
    }
    assert answer_of(fields_of(answer)) == answer


def test_versions_from_the_page_are_checked():
    raw = {"why-clinical_safety": 3, "flags": True, "comments": "9", "admin": 4, "flags2": -1}
    assert parse_versions(raw, NAMES) == {"why-clinical_safety": 3}
    assert parse_versions(["not", "a", "dict"], NAMES) == {}


value = st.one_of(st.none(), st.text(max_size=3), st.integers(1, 5))
one_save = st.dictionaries(
    st.sampled_from(FIELDS), st.tuples(st.integers(1, 10**6), value), min_size=1
).map(lambda d: ({k: v for k, (_, v) in d.items()}, {k: n for k, (n, _) in d.items()}))


@given(
    saves=st.lists(one_save, max_size=8),
    order=st.randoms(use_true_random=False),
    repeats=st.lists(st.integers(0, 7), max_size=4),
)
def test_any_order_and_any_repeat_gives_each_field_its_newest_value(saves, order, repeats):
    # Versions are unique per field (a page's clock only moves forward): drop clashing saves.
    seen, unique = set(), []
    for incoming, versions in saves:
        if not seen & {(f, v) for f, v in versions.items()}:
            seen |= set(versions.items())
            unique.append((incoming, versions))
    arrivals = unique + [unique[i] for i in repeats if i < len(unique)]  # some arrive twice
    order.shuffle(arrivals)
    fields, versions = apply_all(arrivals)

    for name in FIELDS:
        claims = [(v[name], s.get(name)) for s, v in unique if name in v]
        if not claims:
            assert name not in fields and name not in versions
            continue
        newest_version, newest_value = max(claims, key=lambda claim: claim[0])
        assert versions[name] == newest_version
        if newest_value in (None, ""):
            assert name not in fields
        else:
            assert fields[name] == newest_value


def test_fresher_lists_what_the_page_has_not_seen_cleared_fields_included():
    fields = {"why-clinical_safety": "late text", "flags": ["unsafe"]}
    versions = {"why-clinical_safety": 50, "flags": 10, "why-triage_quality": 60}
    known = {"why-clinical_safety": 40, "flags": 10}
    assert fresher(fields, versions, known) == {
        "why-clinical_safety": [50, "late text"],
        "why-triage_quality": [60, None],
    }
