"""What `create_study` and `create_round` share: options that mirror the research forms, the
form bound from them (so every check the page makes applies, with its own words), and the
report of what was made.

The commands never build a study themselves: they bind `StudyForm` or `RoundForm` and call its
`create`, exactly as the pages do.
"""

from __future__ import annotations

from django import forms
from django.contrib.auth.models import User
from django.core.management.base import CommandError
from django.db.models import Q
from django.template.defaultfilters import pluralize

from annotation import lifecycle
from annotation.models import Assignment, Clinician, Study
from annotation.pure.sampling import EXTREMES_FIRST, PER_MODEL, UNIFORM
from annotation.studies import names_shown_to_clinicians
from jury.rubrics import choice_of
from ratings.rubric import RubricError

# The form's field names, as the options spell them, so an error names what to change.
OPTION_OF = {
    "n_items": "--n",
    "trace_ids": "--traces",
    "source_round": "--copy-round",
    "models": "--model",
    "overlap_clinical": "--overlap-clinical",
    "overlap_operations": "--overlap-operations",
    "reference_percent": "--reference-percent",
    "adjudication_threshold": "--adjudication-threshold",
    "min_exact": "--min-exact",
    "min_adjacent": "--min-adjacent",
    "min_alpha": "--min-alpha",
    "on_fail": "--on-fail",
}


def comma_list(raw: str) -> list[str]:
    return [part.strip() for part in raw.split(",") if part.strip()]


def add_common_arguments(parser) -> None:
    parser.add_argument("name", help="The name clinicians see: name no model or run in it")
    parser.add_argument(
        "--clinicians",
        type=comma_list,
        default=[],
        help="Comma-separated clinician codes (C-6FA2F3) or emails; active clinicians only",
    )
    parser.add_argument("--seed", type=int, default=1, help="The same seed, the same sample")
    parser.add_argument(
        "--by", default="", help="Username recorded as the creator (and in the audit trail)"
    )
    parser.add_argument(
        "--open",
        action="store_true",
        help="Open it at once, when its checklist holds (otherwise it stays a draft)",
    )


def add_sample_arguments(parser, required: bool) -> None:
    parser.add_argument(
        "--rubric",
        default="patientagentbench",
        metavar="NAME[@VERSION]",
        help="The rubric the clinicians score (default: the built-in patientagentbench; the "
        "newest version unless one is named; import your own with import_rubric)",
    )
    parser.add_argument(
        "--n",
        type=int,
        required=required,
        help="How many conversations the sampler draws",
    )
    parser.add_argument(
        "--runs",
        type=comma_list,
        default=[],
        help="Comma-separated run ids to sample from (default: every run with conversations)",
    )
    parser.add_argument(
        "--design",
        choices=[EXTREMES_FIRST, UNIFORM, PER_MODEL],
        default=EXTREMES_FIRST,
        help="Stratified extremes-first (default), a uniform random share, or the same number "
        "per model",
    )
    parser.add_argument(
        "--model", action="append", default=[], help="Only this model (repeat for more)"
    )
    for attribute in ("category", "subtask", "severity"):
        parser.add_argument(
            f"--{attribute}", action="append", default=[], help=f"Only this {attribute} (repeat)"
        )
    parser.add_argument("--outcome", choices=["passed", "failed"], default="")


def sample_data(options: dict) -> dict:
    """The sampler's fields of the form, from the options."""
    return {
        "rubric": rubric_choice(options["rubric"]),
        "n_items": options["n"],
        "runs": options["runs"],
        "design": options["design"],
        "seed": options["seed"],
        "models": options["model"],
        "category": options["category"],
        "subtask": options["subtask"],
        "severity": options["severity"],
        "outcome": options["outcome"],
    }


def clinician_ids(wanted: list[str]) -> list[int]:
    """Each code or email's clinician; an unknown one is refused by name (the form would only
    say that some id is not a valid choice)."""
    ids = []
    for who in wanted:
        found = Clinician.objects.filter(Q(code__iexact=who) | Q(user__email__iexact=who)).first()
        if found is None:
            raise CommandError(f"No clinician {who!r}: give a code such as C-6FA2F3 or an email.")
        if not found.user.is_active:
            raise CommandError(f"{found.code} is deactivated: reactivate them on People first.")
        ids.append(found.pk)
    return ids


def actor(username: str) -> User | None:
    if not username:
        return None
    found = User.objects.filter(username=username).first()
    if found is None:
        raise CommandError(f"No user {username!r} for --by.")
    return found


def valid(form: forms.Form) -> forms.Form:
    """The bound form, or a CommandError with its messages on one line."""
    if form.is_valid():
        return form
    raise CommandError(form_errors(form.errors))


def form_errors(errors) -> str:
    parts = []
    for field, messages in errors.items():
        text = " ".join(messages)
        parts.append(
            text if field == "__all__" else f"{OPTION_OF.get(field, '--' + field)}: {text}"
        )
    return "; ".join(parts)


def refusal(exc: Exception) -> CommandError:
    """What `create` raises (StudyError, or a ValidationError on the chosen conversations)."""
    if isinstance(exc, forms.ValidationError):
        return CommandError(" ".join(exc.messages))
    return CommandError(str(exc))


def describe(study: Study, adopted: int = 0) -> list[str]:
    """What was made: id, items, assignments, and the checklist that decides opening."""
    items = study.items.count()
    assignments = Assignment.objects.filter(item__study=study).live().count()
    clinicians = (
        Assignment.objects.filter(item__study=study).live().values("clinician").distinct().count()
    )
    kind = "calibration round" if study.is_calibration else "study"
    lines = [
        f"Created {kind} {study.pk} “{study.name}”: {_count(items, 'item')}, "
        f"{_count(assignments, 'assignment')} for {_count(clinicians, 'clinician')}."
    ]
    if adopted:
        lines.append(f"{_count(adopted, 'item')} took the copied round's consensus as reference.")
    lines.append("Checklist to open:")
    lines += [
        f"  [{'x' if check.ok else ' '}] {check.label}: {check.detail}"
        for check in lifecycle.checklist(study)
    ]
    return lines


def report(command, study: Study, open_wanted: bool, by, adopted: int = 0, notes=()) -> None:
    """What both commands print once a study exists: what was made, notes and warnings on
    stderr, then whether it opened."""
    command.stdout.write("\n".join(describe(study, adopted)))
    for note in notes:
        command.stderr.write(f"Note: {note}")
    for warning in warnings(study):
        command.stderr.write(f"Warning: {warning}")
    command.stdout.write(open_or_leave(study, open_wanted, by))


def open_or_leave(study: Study, wanted: bool, by) -> str:
    """Open it when asked and the checklist holds; otherwise say it is a draft."""
    if not wanted:
        return "Left as a draft: open it on its page or with --open once the checklist holds."
    try:
        lifecycle.open_study(study, by)
    except lifecycle.LifecycleError as exc:
        raise CommandError(f"Study {study.pk} was created but left a draft. {exc}") from exc
    return f"Opened {study.pk} to its clinicians."


def warnings(study: Study) -> list[str]:
    return names_shown_to_clinicians(study)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{pluralize(n)}"


def rubric_choice(text: str) -> str:
    try:
        return choice_of(text)
    except RubricError as error:
        raise CommandError(f"--rubric {text}: {error}") from error
