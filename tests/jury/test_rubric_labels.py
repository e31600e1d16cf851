"""`dimension_label`: templates print a dimension's label, never its key."""

from django.template import Context, Template

from ratings.rubric import load_rubric


def render(text: str, **context) -> str:
    return Template("{% load rubric_labels %}" + text).render(Context(context))


def test_a_key_renders_as_its_label():
    assert render("{{ key|dimension_label }}", key="workflow_accuracy") == "Workflow accuracy"
    assert render("{{ key|dimension_label }}", key="") == ""


def test_the_rubric_a_page_scored_with_can_be_given():
    rubric = load_rubric()
    text = render("{{ key|dimension_label:rubric }}", key="clinical_safety", rubric=rubric)
    assert text == "Clinical safety"
