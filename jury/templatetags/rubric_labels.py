"""`{{ key|dimension_label }}`: a rubric dimension key as a person reads it ("Workflow
accuracy", never `workflow_accuracy`). Pass the rubric a page scored with when it is not the
current one: `{{ key|dimension_label:rubric }}`."""

from django import template

from ratings.rubric import Rubric, cached_rubric

register = template.Library()


@register.filter
def dimension_label(key, rubric: Rubric | None = None) -> str:
    if key in (None, ""):
        return ""
    return (rubric if isinstance(rubric, Rubric) else cached_rubric()).label(str(key))
