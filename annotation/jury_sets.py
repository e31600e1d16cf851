"""The conversations of a study, offered to the jury's launch page and `run_jury --study`, so
a panel can score exactly what clinicians score (jury cannot import this app)."""

from __future__ import annotations

from annotation.models import Item, Study
from jury.pure.subsets import ConversationSet


def _options(run_id: int) -> list[tuple[str, str]]:
    studies = Study.objects.filter(items__trace__run_id=run_id).distinct().order_by("pk")
    return [(str(study.pk), f"The items of study {study.pk}: {study.name}") for study in studies]


def _traces(run_id: int, key: str) -> list[int] | None:
    if not key.isdigit():
        return None
    ids = Item.objects.filter(study_id=int(key), trace__run_id=run_id).values_list(
        "trace_id", flat=True
    )
    return sorted(set(ids)) or None


STUDY_ITEMS = ConversationSet(kind="study", noun="study", options=_options, traces=_traces)
