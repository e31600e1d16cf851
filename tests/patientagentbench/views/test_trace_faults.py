"""The trace page tells a researcher what went wrong beyond the score: an agent copying the
patient (`agent_echo`)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from patientagentbench.models import Trace
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.suites.case_sets import create_case_set


def page(client, researcher, trace) -> str:
    client.force_login(researcher)
    return client.get(reverse("trace_detail", args=[trace.pk])).content.decode()


@pytest.mark.django_db
def test_an_agent_copying_the_patient_is_flagged_with_a_link_to_the_turn(
    client, researcher, scenario_trace
):
    said = "My chest has hurt since Monday and it goes down my left arm."
    Trace.objects.filter(pk=scenario_trace.pk).update(
        messages=[
            {"role": "system", "content": "clinic assistant"},
            {"role": "user", "content": said},
            {"role": "assistant", "content": said.upper()},
            {"role": "user", "content": "Why are you repeating me?"},
        ]
    )
    body = page(client, researcher, scenario_trace)
    assert 'data-testid="faults"' in body and "<code>agent_echo</code>" in body
    assert 'href="?turns=1#turn-2"' in body


@pytest.mark.django_db
def test_a_conversation_without_faults_shows_none(client, researcher, scenario_trace):
    assert 'data-testid="faults"' not in page(client, researcher, scenario_trace)


EVIL = "<script>alert('x')</script>"


class ScriptedPatientModel:
    """A patient model that first answers as the assistant (with markup), then as a patient."""

    def __init__(self):
        self.answers = [f"How can I help you today? {EVIL}", "I need my refill please. [END]"]

    def complete(self, messages, tools, temperature, context):
        from patientagentbench.providers.types import Completion

        answer = self.answers.pop(0) if self.answers else "[END]"
        return Completion(answer, [], thinking=f"thinking {EVIL}")


@pytest.fixture
def llm_patient_trace(db, sim_models, monkeypatch):
    from patientagentbench.models import ModelConfig
    from patientagentbench.runs import jobs

    patient_model = ModelConfig.objects.create(
        name="patient-llm", provider="simulated", model_id="sim-steady"
    )
    scripted, real = ScriptedPatientModel(), jobs.provider_for
    monkeypatch.setattr(
        jobs, "provider_for", lambda m: scripted if m.pk == patient_model.pk else real(m)
    )
    suite = create_case_set("llm-patient-cases", 1, seed=4)
    run = launch_run(
        suite=suite,
        models=sim_models[:1],
        max_turns=4,
        patient_model=patient_model,
        enqueue=False,
    )
    execute_inline(run)
    return run.traces.get()


@pytest.mark.django_db
def test_the_llm_patients_rejected_answers_are_stored_and_shown_collapsed_and_escaped(
    client, researcher, llm_patient_trace
):
    (attempt,) = llm_patient_trace.patient_rejected_attempts
    assert attempt["rejected"] == "sounded like the assistant"
    assert EVIL in attempt["text"] and EVIL in attempt["thinking"]
    body = page(client, researcher, llm_patient_trace)
    assert '<details class="card" data-testid="patient-rejected">' in body
    assert "sounded like the assistant" in body
    assert EVIL not in body and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in body


@pytest.mark.django_db
def test_the_traces_warnings_are_shown(client, researcher, scenario_trace):
    detail = f"a call to m timed out after 60 s and was retried (attempt 2) {EVIL}"
    Trace.objects.filter(pk=scenario_trace.pk).update(
        warnings=[{"kind": "timeout_retry", "model": "m", "attempt": 1, "detail": detail}]
    )
    body = page(client, researcher, scenario_trace)
    assert 'data-testid="warnings"' in body and "timed out after 60 s" in body
    assert EVIL not in body


@pytest.mark.django_db
def test_the_end_reason_is_in_the_run_pages_words_on_the_trace_page(
    client, researcher, scenario_trace
):
    Trace.objects.filter(pk=scenario_trace.pk).update(end_reason="max_iterations")
    body = page(client, researcher, scenario_trace)
    assert "<b>hit the tool-call limit in one turn</b>" in body
    assert "max_iterations" not in body
    run_page = client.get(reverse("run_detail", args=[scenario_trace.run_id])).content.decode()
    assert "(hit the tool-call limit in one turn)" in run_page and "max_iterations)" not in run_page
    case_page = client.get(
        reverse("case_detail", args=[scenario_trace.task.suite_id, scenario_trace.task_id])
    ).content.decode()
    assert "· hit the tool-call limit in one turn</span>" in case_page


@pytest.mark.django_db
def test_an_imported_end_reason_and_tool_names_are_shown_verbatim_and_escaped(
    client, researcher, scenario_trace
):
    """An end reason this code does not know (an import's) is the importer's text: shown as
    written, underscores and all, never reworded into words that read as ours."""
    imported = "agent_gave_up_<b>early</b>"
    call = {"id": "t9", "name": "lookup_patient_chart", "arguments": {"field": "blood_type"}}
    Trace.objects.filter(pk=scenario_trace.pk).update(
        end_reason=imported,
        messages=scenario_trace.messages
        + [
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "content": "chart_not_found", "tool_call_id": "t9", "status": "ok"},
        ],
        side_effects=[{"kind": "fax_sent_v2", "to_number": "clinic_fax_line"}],
    )
    body = page(client, researcher, scenario_trace)
    assert "<b>agent_gave_up_&lt;b&gt;early&lt;/b&gt;</b>" in body
    assert "agent gave up" not in body and "<b>early</b>" not in body
    for text in ("lookup_patient_chart", "blood_type", "chart_not_found", "clinic_fax_line"):
        assert text in body and text.replace("_", " ") not in body.lower(), text
    assert '<code class="small muted">fax_sent_v2</code>' in body
    run_page = client.get(reverse("run_detail", args=[scenario_trace.run_id])).content.decode()
    assert "(agent_gave_up_&lt;b&gt;early&lt;/b&gt;)" in run_page
    assert "agent gave up" not in run_page


@pytest.mark.django_db
def test_a_thread_of_echoes_lists_the_first_twenty_and_counts_the_rest(
    client, researcher, scenario_trace
):
    said = "My chest has hurt since Monday and it goes down my left arm."
    messages = [{"role": "system", "content": "clinic assistant"}]
    for _ in range(25):
        messages += [{"role": "user", "content": said}, {"role": "assistant", "content": said}]
    Trace.objects.filter(pk=scenario_trace.pk).update(messages=messages)
    body = page(client, researcher, scenario_trace)
    assert body.count("<code>agent_echo</code>") == 20 and "and 5 more" in body
