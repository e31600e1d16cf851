"""`{{ trace.end_reason|end_in_words }}`: a stored end reason as the run page words it, on
every page (`conversation.describe_end`, the one wording)."""

from django import template

from patientagentbench.conversation import describe_end

register = template.Library()


@register.filter
def end_in_words(reason: str) -> str:
    return describe_end(reason)[0] if reason else ""
