"""The rubric as versioned data: what judges and clinicians score, loaded from
`fixtures/rubrics/<name>-v<version>.json` and checked before anyone relies on it.

Scores are only comparable when everyone read the same text, so the rubric's wording lives in a
file with a version, and `Rubric.fingerprint` (sha256 of the canonical JSON) lets a caller
notice that a stored version's text has changed underneath it: changed text needs a new
version. Validation names the offending field, because a rubric is edited by hand.

Scored dimensions in two tracks (clinical, operations) carry weights for the aggregate; the
realism dimensions rate the simulation, not the agent, carry no weight and are rated by every
clinician (DESIGN §5, §6). The rubric carries its `Scale` (its points, pass mark and the words
for each point): judges, forms, prompts and figures read it from the rubric they score, and
`ratings.scale` holds only the default rubric's scale for callers with no rubric at hand.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

RUBRICS_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "rubrics"
SCORED_TRACKS = frozenset({"clinical", "operations"})
REALISM = "realism"
TRACKS = SCORED_TRACKS | {REALISM}
JUDGES = frozenset({"panel", "experiment"})
# When a dimension may be marked not applicable, as a rule a page and a server can check; the
# `applicability` text says the same in words. "judgement": whenever the rater judges so;
# "agent_silent": only when the agent never wrote to the patient; "no_tool_calls": only when
# the agent called no tool; "never": realism, always rated.
NOT_APPLICABLE_RULES = frozenset({"judgement", "agent_silent", "no_tool_calls", "never"})
# The most points a scale may have: beyond ten, raters no longer tell neighbouring points
# apart, and the stored scores are bounded by it (jury verdicts check it in the database).
MAX_SCALE_POINTS = 10
MAX_DIMENSIONS = 20


class RubricSource(Protocol):
    """Where rubrics besides the built-in files live (researchers' own, imported into the
    database by `jury.rubrics`): each version's data, exactly as the file gave it."""

    def data(self, name: str, version: str) -> dict | None: ...

    def versions(self, name: str) -> list[int]: ...

    def names(self) -> list[str]: ...


_SOURCES: list[RubricSource] = []


def add_rubric_source(source: RubricSource) -> None:
    """Let `load_rubric` find rubrics in `source` too (the built-in files come first, so a
    stored rubric can never stand in for one of them)."""
    if source not in _SOURCES:
        _SOURCES.append(source)


class RubricError(ValueError):
    """A rubric file that is missing, malformed or breaks a rule; the message names the field."""


@dataclass(frozen=True)
class Scale:
    """The points a rater chooses from (whole numbers, no half steps), the pass mark, and how a
    page names each point. N/A is no point of the scale: each dimension says when it may be
    chosen instead (`Dimension.allows_not_applicable`)."""

    points: tuple[int, ...]
    pass_mark: int
    labels: tuple[str, ...]  # one per point

    @property
    def low(self) -> int:
        return self.points[0]

    @property
    def high(self) -> int:
        return self.points[-1]

    @property
    def span(self) -> str:
        """How a sentence states the range: "1 to 5"."""
        return f"{self.low} to {self.high}"

    def __contains__(self, score: object) -> bool:
        return not isinstance(score, bool) and score in self.points

    def index(self, score: int) -> int:
        """The position of a point: 0 for the lowest."""
        return self.points.index(score)

    def passes(self, score: float) -> bool:
        return score >= self.pass_mark

    @property
    def shows_adjacent(self) -> bool:
        """Whether "within one point" says anything: on 2 points any two scores are, and on
        3 only the two ends are not, so adjacent agreement is a figure of 4 points or more."""
        return len(self.points) >= MIN_ADJACENT_POINTS

    @property
    def adjacent_refusal(self) -> str:
        return (
            f"adjacent agreement does not apply on a {len(self.points)}-point scale (it needs "
            f"{MIN_ADJACENT_POINTS} or more: on fewer, scores one apart are most of the scale)"
        )


MIN_ADJACENT_POINTS = 4


@dataclass(frozen=True)
class Level:
    score: int
    label: str
    anchor: str


@dataclass(frozen=True)
class Dimension:
    key: str
    label: str
    track: str
    weight: float | None
    definition: str
    applicability: str
    judges: str
    levels: tuple[Level, ...]
    not_applicable_when: str = "judgement"
    # What the jury is told for this dimension besides its definition and levels (the
    # team's own guidance); none in the built-in rubric, whose prompts are unchanged.
    judge_instructions: str = ""

    @property
    def scored(self) -> bool:
        """True for the agent's dimensions; realism rates the simulation instead."""
        return self.track != REALISM

    def allows_not_applicable(self, *, agent_replied: bool, tools_called: bool) -> bool:
        """Whether N/A may be chosen for a conversation with these facts."""
        return not self.not_applicable_refusal(
            agent_replied=agent_replied, tools_called=tools_called
        )

    def not_applicable_refusal(self, *, agent_replied: bool, tools_called: bool) -> str:
        """Why N/A may not be chosen for a conversation with these facts; '' when it may. A
        judge's N/A against it is a failure of that judge, counted, never a dropped score."""
        rule = self.not_applicable_when
        if rule == "agent_silent" and agent_replied:
            reason = f"the agent replied, so {self.label.lower()} applies"
        elif rule == "no_tool_calls" and tools_called:
            reason = "the agent called a tool, so tool use is scored"
        elif rule == "never":
            reason = f"{self.label.lower()} is always rated"
        else:
            return ""
        return f"not applicable is not allowed here: {reason}"

    def level(self, score: int) -> Level:
        return next(level for level in self.levels if level.score == score)


@dataclass(frozen=True)
class Rubric:
    name: str
    version: str
    title: str
    description: str
    scale: Scale
    dimensions: tuple[Dimension, ...]
    fingerprint: str

    @property
    def pass_threshold(self) -> int:
        return self.scale.pass_mark

    @property
    def scored(self) -> tuple[Dimension, ...]:
        return tuple(d for d in self.dimensions if d.scored)

    @property
    def realism(self) -> tuple[Dimension, ...]:
        return tuple(d for d in self.dimensions if not d.scored)

    @property
    def weights(self) -> dict[str, float]:
        return {d.key: d.weight for d in self.scored if d.weight is not None}

    def dimension(self, key: str) -> Dimension:
        for dimension in self.dimensions:
            if dimension.key == key:
                return dimension
        raise KeyError(f"rubric {self.name} v{self.version} has no dimension {key!r}")

    def label(self, key: str) -> str:
        """How a person reads a dimension key: its label ("Workflow accuracy"); a key this
        version does not hold (an older rubric's, a typo in a file) reads as words."""
        for dimension in self.dimensions:
            if dimension.key == key:
                return dimension.label
        return str(key).replace("_", " ").capitalize()

    def passes(self, score: float) -> bool:
        return self.scale.passes(score)

    def dimensions_for(self, tracks: set[str] | frozenset[str]) -> list[Dimension]:
        """What a clinician of these tracks scores: their tracks' dimensions in rubric order,
        then the realism dimensions, which everyone rates, always last."""
        unknown = set(tracks) - TRACKS
        if unknown:
            raise RubricError(f"unknown track(s) {sorted(unknown)}; tracks are {sorted(TRACKS)}")
        chosen = [d for d in self.scored if d.track in tracks]
        return chosen + list(self.realism)


def fingerprint(data: Any) -> str:
    """sha256 of the canonical JSON: key order and whitespace do not count, wording does."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def available_versions(name: str = "patientagentbench", directory: Path | None = None) -> list[int]:
    """Versions of a rubric name, on disk and in every added source, ascending by integer (so
    v10 comes after v9)."""
    pattern = re.compile(rf"^{re.escape(name)}-v(\d+)\.json$")
    found = (pattern.match(p.name) for p in (directory or RUBRICS_DIR).glob(f"{name}-v*.json"))
    versions = {int(m.group(1)) for m in found if m}
    if directory is None and not versions:  # a built-in name is never a source's
        for source in _SOURCES:
            versions.update(source.versions(name))
    return sorted(versions)


def built_in_names(directory: Path | None = None) -> list[str]:
    """The rubric names that ship as files (`fixtures/rubrics/<name>-v<n>.json`)."""
    found = (re.match(r"^(.+)-v\d+\.json$", p.name) for p in (directory or RUBRICS_DIR).glob("*"))
    return sorted({m.group(1) for m in found if m})


def rubric_names() -> list[str]:
    """Every rubric name a study or panel may name: the built-in files', then the sources'."""
    names = built_in_names()
    for source in _SOURCES:
        names += [n for n in source.names() if n not in names]
    return names


def load_rubric(
    name: str = "patientagentbench",
    version: str | int | None = None,
    directory: Path | None = None,
) -> Rubric:
    """Read and validate `<name>-v<version>.json`; the highest version when none is given."""
    directory = directory or RUBRICS_DIR
    if version is None:
        versions = available_versions(name, directory)
        if not versions:
            raise RubricError(f"no rubric named {name!r} in {directory}")
        version = versions[-1]
    path = directory / f"{name}-v{version}.json"
    if not path.exists():
        built_in = directory != RUBRICS_DIR or name in built_in_names(directory)
        sources = [] if built_in else _SOURCES  # a built-in name is never a source's
        stored = next((d for s in sources if (d := s.data(name, str(version))) is not None), None)
        if stored is None:
            raise RubricError(f"no rubric {name} v{version} (no file {path.name} in {directory})")
        return parse_rubric(stored, source=f"{name} v{version}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise RubricError(f"{path.name}: not valid JSON ({error})") from error
    rubric = parse_rubric(data, source=path.name)
    if (rubric.name, rubric.version) != (name, str(version)):
        raise RubricError(
            f"{path.name}: name/version say {rubric.name} v{rubric.version}, "
            f"the file name says {name} v{version}"
        )
    return rubric


def parse_rubric(data: Any, source: str = "rubric") -> Rubric:
    """Validate rubric data (as read from JSON) and build a `Rubric`."""
    where = _Where(source)
    if not isinstance(data, dict):
        raise where.error("", "must be a JSON object")
    version = _text(data, "version", where)
    if not version.isdigit():
        raise where.error("version", f"must be a whole number as a string, got {version!r}")
    raw_dimensions = data.get("dimensions")
    if not isinstance(raw_dimensions, list) or not raw_dimensions:
        raise where.error("dimensions", "must be a non-empty list")
    points = _points(raw_dimensions, where.at("dimensions"))
    dimensions = tuple(
        _dimension(d, points, where.at(f"dimensions[{i}]")) for i, d in enumerate(raw_dimensions)
    )
    _check_dimension_set(dimensions, where)
    return Rubric(
        name=_text(data, "name", where),
        version=version,
        title=str(data.get("title", "")),
        description=str(data.get("description", "")),
        scale=Scale(
            points=points,
            pass_mark=_pass_threshold(data, points, where),
            labels=_point_labels(dimensions, points),
        ),
        dimensions=dimensions,
        fingerprint=fingerprint(data),
    )


class _Where:
    """Builds errors that say which file and which field is wrong."""

    def __init__(self, source: str, path: str = "") -> None:
        self.source = source
        self.path = path

    def at(self, path: str) -> _Where:
        return _Where(self.source, path)

    def error(self, field: str, problem: str) -> RubricError:
        dotted = ".".join(part for part in (self.path, field) if part) or "(top level)"
        return RubricError(f"{self.source}: {dotted} {problem}")


def _text(data: dict, field: str, where: _Where) -> str:
    value = data.get(field)
    if not isinstance(value, str) or not value.strip():
        raise where.error(field, "is required and must be non-empty text")
    return value


def _points(raw_dimensions: list, where: _Where) -> tuple[int, ...]:
    """The scale's points: 1 up to the number of levels most dimensions list, so that the one
    dimension that lists another number is the one an error names (`_levels` checks each)."""
    counts = Counter(
        len(d["levels"])
        for d in raw_dimensions
        if isinstance(d, dict) and isinstance(d.get("levels"), list)
    )
    if not counts or counts.most_common(1)[0][0] < 2:
        raise where.error("levels", "must list at least two levels, scores 1 upwards")
    size = counts.most_common(1)[0][0]
    if size > MAX_SCALE_POINTS:
        raise where.error("levels", f"must list at most {MAX_SCALE_POINTS} levels, got {size}")
    return tuple(range(1, size + 1))


def _pass_threshold(data: dict, points: tuple[int, ...], where: _Where) -> int:
    # A rubric states its pass mark; one that does not passes from its middle point up.
    value = data.get("pass_threshold", points[len(points) // 2])
    if isinstance(value, bool) or value not in points:
        raise where.error(
            "pass_threshold", f"must be a score from {points[0]} to {points[-1]}, got {value!r}"
        )
    return value


def _point_labels(dimensions: tuple[Dimension, ...], points: tuple[int, ...]) -> tuple[str, ...]:
    """The words for each point where the scored dimensions share them ("Fail" … "Excellent");
    the number itself where they differ, so a page never names a point wrongly."""
    shared = []
    for index, score in enumerate(points):
        words = {d.levels[index].label for d in dimensions if d.scored}
        shared.append(words.pop() if len(words) == 1 else str(score))
    return tuple(shared)


def _dimension(data: Any, points: tuple[int, ...], where: _Where) -> Dimension:
    if not isinstance(data, dict):
        raise where.error("", "must be an object")
    key = _text(data, "key", where)
    where = where.at(f"{where.path}({key})")
    track = data.get("track")
    if track not in TRACKS:
        raise where.error("track", f"must be one of {sorted(TRACKS)}, got {track!r}")
    judges = data.get("judges", "panel")
    if judges not in JUDGES:
        raise where.error("judges", f"must be one of {sorted(JUDGES)}, got {judges!r}")
    return Dimension(
        key=key,
        label=_text(data, "label", where),
        track=track,
        weight=_weight(data.get("weight"), track, where),
        definition=_text(data, "definition", where),
        applicability=_text(data, "applicability", where),
        judges=judges,
        levels=_levels(data.get("levels"), points, where),
        not_applicable_when=_not_applicable_rule(data, track, where),
        judge_instructions=_optional_text(data, "judge_instructions", where),
    )


def _optional_text(data: dict, field: str, where: _Where) -> str:
    value = data.get(field, "")
    if not isinstance(value, str):
        raise where.error(field, f"must be text when given, got {value!r}")
    return value.strip()


def _not_applicable_rule(data: dict, track: str, where: _Where) -> str:
    rule = data.get("not_applicable_when", "never" if track == REALISM else "judgement")
    if rule not in NOT_APPLICABLE_RULES:
        raise where.error(
            "not_applicable_when", f"must be one of {sorted(NOT_APPLICABLE_RULES)}, got {rule!r}"
        )
    if track == REALISM and rule != "never":
        raise where.error("not_applicable_when", "must be never for a realism dimension")
    return rule


def _weight(value: Any, track: str, where: _Where) -> float | None:
    # Realism rates the simulation; a weight would let it leak into the agent's aggregate.
    if track == REALISM:
        if value is not None:
            raise where.error("weight", "must be null for a realism dimension")
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise where.error("weight", f"must be a number > 0, got {value!r}")
    return float(value)


def _levels(data: Any, points: tuple[int, ...], where: _Where) -> tuple[Level, ...]:
    span = f"{points[0]} to {points[-1]}"
    if not isinstance(data, list) or len(data) != len(points):
        raise where.error(
            "levels", f"must list {len(points)} levels, scores {span}, as the other dimensions do"
        )
    levels = []
    for index, (raw, score) in enumerate(zip(data, points, strict=True)):
        at = where.at(f"{where.path}.levels[{index}]")
        if not isinstance(raw, dict) or raw.get("score") != score:
            raise at.error("score", f"must be {score} (levels run {span} in order)")
        anchor = _text(raw, "anchor", at)
        # Anchors are cumulative: a level must say it builds on the one below, or raters read
        # each level as a separate checklist and the scale stops being ordinal.
        if score > 1 and not re.search(rf"\blevel {score - 1}\b", anchor):
            raise at.error("anchor", f"must build on level {score - 1} (cumulative anchors)")
        levels.append(Level(score=score, label=_text(raw, "label", at), anchor=anchor))
    return tuple(levels)


def _check_dimension_set(dimensions: tuple[Dimension, ...], where: _Where) -> None:
    keys = [d.key for d in dimensions]
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    if duplicates:
        raise where.error("dimensions", f"repeat the key(s) {duplicates}")
    scored = [d for d in dimensions if d.scored]
    if not scored:
        raise where.error("dimensions", f"need a scored dimension (track {sorted(SCORED_TRACKS)})")
    if len(dimensions) > MAX_DIMENSIONS:
        raise where.error("dimensions", f"must be at most {MAX_DIMENSIONS}, got {len(dimensions)}")


def cached_rubric(name: str = "patientagentbench", version: str | None = None) -> Rubric:
    """A rubric version never changes once written (changed text is a new version), so pages
    read it once per process. "The newest" is looked up each time: a researcher may import a
    newer version while the process runs."""
    if version is None:
        versions = available_versions(name)
        if not versions:
            raise RubricError(f"no rubric named {name!r}")
        version = str(versions[-1])
    return _cached_version(name, str(version))


@functools.lru_cache(maxsize=64)
def _cached_version(name: str, version: str) -> Rubric:
    return load_rubric(name, version)


cached_rubric.cache_clear = _cached_version.cache_clear  # type: ignore[attr-defined]
