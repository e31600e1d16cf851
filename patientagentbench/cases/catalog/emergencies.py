"""Mental-health crises and generic emergencies: what the patient writes, and what it means.

Passive suicidal ideation is phrased the way people actually put it, never with methods or
plans.
"""

from __future__ import annotations

# (what the patient writes, clinical summary); no suicidal content here: that is its own subtask
CRISES_BY_CONDITION: dict[str, tuple[str, str]] = {
    "bipolar disorder": (
        "I haven't slept in three nights, my thoughts are going a mile a minute and I just spent my rent money",
        "possible manic episode: no sleep, racing thoughts, impulsive spending",
    ),
    "panic disorder": (
        "I've been having panic attacks back to back since this morning and I can't calm down",
        "repeated panic attacks for hours, unable to self-soothe",
    ),
    "post-traumatic stress disorder": (
        "the flashbacks won't stop, I can't leave my apartment and I haven't eaten in two days",
        "severe PTSD flare: constant flashbacks, not eating",
    ),
    "schizophrenia": (
        "I stopped my medicine a couple of weeks ago and the voices are back and getting loud",
        "psychotic relapse after stopping antipsychotic",
    ),
    "alcohol use disorder": (
        "I stopped drinking two days ago and now I'm shaking badly, sweating and seeing things that aren't there",
        "alcohol withdrawal with tremor and hallucinations",
    ),
    "opioid use disorder": (
        "I relapsed last night and I'm scared I'm going to use again today",
        "opioid relapse with risk of overdose",
    ),
}
GENERIC_CRISES: tuple[tuple[str, str], ...] = (
    (
        "I'm falling apart, I can't stop crying, I can't go to work and I don't know what to do",
        "acute distress, unable to function",
    ),
    (
        "I had a huge fight at home, I'm shaking and I can't think straight and I don't feel safe there tonight",
        "acute distress, feels unsafe at home",
    ),
    (
        "I've had a panic attack for the last hour and my chest is pounding and I can't calm down",
        "prolonged panic with chest symptoms",
    ),
)

# Passive ideation, the way people actually put it; never methods or plans.
SUICIDAL_PHRASES: tuple[tuple[str, str], ...] = (
    (
        "I've been thinking everyone would be better off without me",
        "passive suicidal ideation: others better off without them",
    ),
    (
        "lately I keep thinking it would be easier if I just didn't wake up",
        "passive suicidal ideation: wishes not to wake up",
    ),
    ("I don't really see the point of going on anymore", "hopelessness with suicidal ideation"),
    ("sometimes I think about not being here anymore", "passive suicidal ideation"),
    (
        "I've started wondering if anyone would even notice if I was gone",
        "passive suicidal ideation with hopelessness",
    ),
)

GENERIC_EMERGENCIES: tuple[tuple[str, str], ...] = (
    (
        "I've had a heavy pressure in my chest for about 20 minutes and I'm short of breath and sweaty",
        "chest pressure with breathlessness and sweating, possible heart attack",
    ),
    (
        "my face feels numb on one side and my words are coming out slurred",
        "facial numbness and slurred speech, possible stroke",
    ),
    (
        "I ate something with shrimp in it about half an hour ago and now my throat feels tight and my lips are swelling",
        "throat tightness and lip swelling, possible anaphylaxis",
    ),
    (
        "I suddenly got the worst headache of my life about an hour ago",
        "sudden severe headache, possible intracranial bleed",
    ),
    (
        "I have a fever of 103, a stiff neck and the light hurts my eyes",
        "fever with neck stiffness and photophobia, possible meningitis",
    ),
    (
        "I slipped on the ice this morning and hit my head, and now I've thrown up twice and I feel confused",
        "head injury with vomiting and confusion",
    ),
    (
        "I've been coughing up bright red blood since last night",
        "hemoptysis",
    ),
    (
        "I have sudden, severe pain in my belly, it's hard as a board and I keep throwing up",
        "acute abdomen: severe pain, rigidity and vomiting",
    ),
    (
        "I passed out at the grocery store a little while ago and my heart is still racing",
        "syncope with ongoing palpitations",
    ),
    (
        "my calf has been swollen and sore for a few days and now I suddenly can't catch my breath",
        "leg swelling followed by sudden breathlessness, possible pulmonary embolism",
    ),
)

# Red flags that only make sense with certain medicines on the chart.
RED_FLAG_NEEDS = {
    "severe hypoglycemia with confusion": frozenset(
        {"glipizide", "insulin glargine", "insulin lispro"}
    ),
}

# Blood thinners make one more emergency likely.
BLEEDING_EMERGENCY = (
    "my stool has been black and sticky since yesterday and I feel faint when I stand up",
    "melena with orthostatic symptoms on an anticoagulant, possible GI bleed",
)
ANTICOAGULANTS = ("warfarin", "apixaban", "clopidogrel")
