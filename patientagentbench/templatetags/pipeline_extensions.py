"""The pipeline's pages read what the apps above registered (`patientagentbench.extensions`)."""

from django import template

from patientagentbench import extensions

register = template.Library()


@register.simple_tag
def run_actions():
    """`{% run_actions as actions %}`: buttons other apps put on a run's page."""
    return extensions.run_actions()


@register.simple_tag
def deviation_actions():
    """`{% deviation_actions as actions %}`: what other apps offer for deviating traces."""
    return extensions.deviation_actions()
