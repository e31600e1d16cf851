"""Whether a judge or a panel is qualified: read from the `JudgeQualification` records a
calibration round wrote (annotation.judge_calibration computes them with the clinician's own
calibration functions), as a clinician's standing is read from theirs. A record counts for
the rubric version and track it was written for, while the judge's prompt version (for a
panel, its judges and their prompt versions) is the one that took the round and nobody has
re-opened it. Every page that shows a jury's numbers says when it is not qualified, and the
envelope verdict is withheld unless the researcher overrides that (annotation.pure.envelope).
Beside it, always, the jury's validity (`Standing.validity`, jury.pure.validity.standing): a
jury that passed its round but whose scores invert is withheld and warned of the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from jury import verdicts
from jury.models import Judge, JudgeQualification, Panel
from jury.pure import validity as validity_rule
from ratings.rubric import cached_rubric


def panel_signature(panel: Panel) -> str:
    """The panel as it judges now: each judge's id and prompt version."""
    judges = sorted(panel.judges.values_list("pk", "prompt_version"))
    return ",".join(f"{pk}:{version}" for pk, version in judges)


def rubric_tracks(panel: Panel) -> list[str]:
    rubric = cached_rubric(panel.rubric_name, panel.rubric_version)
    return list(dict.fromkeys(d.track for d in rubric.scored))


def current_records(panel: Panel, judge: Judge | None = None):
    """The records that count for the panel's rubric version: the panel verdict's (judge
    None) at the panel's current judges, or one judge's at its current prompt version."""
    records = JudgeQualification.objects.filter(
        rubric_name=panel.rubric_name,
        rubric_version=panel.rubric_version,
        reopened_at__isnull=True,
    )
    if judge is None:
        return records.filter(
            panel=panel, judge__isnull=True, prompt_version=panel_signature(panel)
        )
    # A judge's answers do not depend on the panel it sat on: any panel's record counts.
    return records.filter(judge=judge, prompt_version=judge.prompt_version)


@dataclass(frozen=True)
class Standing:
    who: str  # "panel sim-jury" or "judge j1"
    rubric: str  # "patientagentbench v1"
    tracks: tuple[str, ...]  # the rubric's scored tracks
    qualified: frozenset[str]  # the tracks a current passed record covers
    # Whose validity `validity` reads, when a page asks for it (an export does not).
    panel: Panel | None = field(default=None, compare=False, repr=False)
    judge: Judge | None = field(default=None, compare=False, repr=False)

    @cached_property
    def validity(self) -> validity_rule.Standing:
        """Whether its scores separate passing from failing conversations, per dimension:
        calibration against references and validity against outcomes, shown together."""
        return verdicts.jury_validity(self.panel, self.judge)

    @property
    def inverts(self) -> bool:
        return self.validity.verdict == validity_rule.INVERTS

    @property
    def fully_qualified(self) -> bool:
        return set(self.tracks) <= self.qualified

    def is_qualified(self, track: str) -> bool:
        return track in self.qualified

    @property
    def missing(self) -> list[str]:
        return [t for t in self.tracks if t not in self.qualified]

    @property
    def reason(self) -> str:
        """'' when qualified on every track; otherwise why not, in a sentence."""
        if self.fully_qualified:
            return ""
        missing = " and ".join(self.missing)
        return (
            f"{self.who.capitalize()} has not passed a calibration round on the {missing} "
            f"track{'s' if len(self.missing) > 1 else ''} of rubric {self.rubric}; its numbers "
            "are not a clinician-equivalent measurement."
        )

    @property
    def text(self) -> str:
        """'' when qualified on every track; otherwise the sentence a page or an export shows."""
        return f"Not qualified: {self.reason}" if self.reason else ""


def standing(panel: Panel, judge: Judge | None = None) -> Standing:
    """Where a panel (or one of its judges, when the jury is that judge alone) stands."""
    passed = current_records(panel, judge).filter(passed=True).values_list("track", flat=True)
    return Standing(
        who=f"judge {judge.name}" if judge is not None else f"panel {panel.name}",
        rubric=f"{panel.rubric_name} v{panel.rubric_version}",
        tracks=tuple(rubric_tracks(panel)),
        qualified=frozenset(passed),
        panel=panel,
        judge=judge,
    )
