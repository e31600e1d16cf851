"""The conditions table, part: Joints, back pain, and the brain and nerves.

One part of `CONDITIONS` (see the package doc); the order of the entries is the
table's order, which the case sampler draws from.
"""

from __future__ import annotations

from .condition import Condition, rx

JOINTS_AND_NERVES: tuple[Condition, ...] = (
    Condition(
        "osteoarthritis",
        "arthritis",
        "arthritis",
        "Orthopedics",
        (
            rx("acetaminophen", "1000 mg", "up to three times daily as needed"),
            rx("meloxicam", "7.5 mg", "once daily with food"),
            rx("diclofenac gel", "1%, 4 g to the knee", "four times daily"),
        ),
        ("stiff knees in the morning", "a grinding feeling in my hip"),
        min_age=40,
        pain="aching knees",
        second_opinion="the orthopedic surgeon recommended a knee replacement",
        lifestyle="which exercises won't wreck my knees",
        treatment_question="whether a cortisone shot in my knee would help",
    ),
    Condition(
        "rheumatoid arthritis",
        "rheumatoid arthritis",
        "arthritis",
        "Rheumatology",
        (
            rx("methotrexate", "15 mg", "once weekly on the same day"),
            rx("folic acid", "1 mg", "once daily"),
            rx("hydroxychloroquine", "200 mg", "twice daily"),
        ),
        ("swollen knuckles", "stiffness that lasts all morning"),
        core=2,
        pain="swollen, painful hands",
        second_opinion="my rheumatologist wants to start me on a biologic injection",
    ),
    Condition(
        "gout",
        "gout",
        "gout",
        "Rheumatology",
        (rx("allopurinol", "300 mg", "once daily"), rx("colchicine", "0.6 mg", "once daily")),
        ("a red, hot big toe", "flare-ups after I eat seafood"),
        min_age=30,
        pain="throbbing, swollen big toe",
        lifestyle="what I need to cut out of my diet for the gout",
    ),
    Condition(
        "systemic lupus erythematosus",
        "lupus",
        "lupus",
        "Rheumatology",
        (
            rx("hydroxychloroquine", "200 mg", "twice daily"),
            rx("prednisone", "5 mg", "once daily"),
        ),
        ("achy joints", "a rash across my cheeks", "being wiped out"),
        pain="achy, swollen joints",
        treatment_question="whether I can ever get off the prednisone",
        core=1,
    ),
    Condition(
        "fibromyalgia",
        "fibromyalgia",
        "fibromyalgia",
        "Rheumatology",
        (rx("duloxetine", "60 mg", "once daily"), rx("pregabalin", "75 mg", "twice daily")),
        ("aching all over", "waking up unrefreshed", "brain fog"),
        pain="all-over body aches",
        lifestyle="whether gentle exercise would help the aching",
    ),
    Condition(
        "chronic low back pain",
        "chronic back pain",
        "a bad back",
        "Orthopedics",
        (
            rx("naproxen", "500 mg", "twice daily with food as needed"),
            rx("cyclobenzaprine", "5 mg", "at bedtime as needed"),
            rx("duloxetine", "30 mg", "once daily"),
        ),
        ("pain across my lower back", "pain shooting down my leg"),
        pain="lower back pain",
        red_flags=(
            (
                "my back pain got much worse, my legs are numb between them and I've lost control of my bladder",
                "back pain with saddle numbness and incontinence, possible cauda equina syndrome",
            ),
        ),
        second_opinion="a spine surgeon suggested a fusion",
        lifestyle="whether physical therapy or yoga would help my back",
    ),
    Condition(
        "migraine with aura",
        "migraines",
        "bad headaches",
        "Neurology",
        (
            rx(
                "sumatriptan",
                "50 mg",
                "at the start of a migraine, may repeat once after 2 hours",
            ),
            rx("topiramate", "50 mg", "twice daily"),
            rx("propranolol", "80 mg", "once daily (extended release)"),
        ),
        (
            "zigzag lines in my vision before a headache",
            "headaches that put me in bed for a day",
        ),
        pain="migraine headaches",
        max_age=75,
        red_flags=(
            (
                "I got a sudden headache like being hit with a bat, the worst of my life, and my neck is stiff",
                "sudden worst-ever headache with neck stiffness, possible subarachnoid hemorrhage",
            ),
        ),
        treatment_question="whether the new migraine injections would work for me",
        lifestyle="which migraine triggers I should avoid",
    ),
    Condition(
        "epilepsy",
        "epilepsy",
        "seizures",
        "Neurology",
        (
            rx("levetiracetam", "500 mg", "twice daily"),
            rx("lamotrigine", "100 mg", "twice daily"),
        ),
        ("a seizure last month after I missed doses", "staring spells"),
        second_opinion="the neurologist wants to add a second seizure medicine",
        lifestyle="whether I can drive again and how to keep from having seizures",
    ),
    Condition(
        "Parkinson's disease",
        "Parkinson's",
        "Parkinson's",
        "Neurology",
        (rx("carbidopa/levodopa", "25/100 mg", "three times daily"),),
        (
            "a tremor in my right hand",
            "shuffling when I walk",
            "my pills wearing off before the next dose",
        ),
        min_age=50,
        second_opinion="my neurologist brought up deep brain stimulation",
        lifestyle="whether exercise classes can slow it down",
    ),
    Condition(
        "multiple sclerosis",
        "MS",
        "MS",
        "Neurology",
        (rx("dimethyl fumarate", "240 mg", "twice daily"),),
        ("numbness in my legs", "being exhausted by mid-afternoon", "blurry vision in one eye"),
        max_age=70,
        second_opinion="the neurologist wants me to switch to an infusion",
    ),
    Condition(
        "diabetic peripheral neuropathy",
        "nerve damage in my feet",
        "numb feet",
        "Neurology",
        (
            rx("gabapentin", "300 mg", "three times daily"),
            rx("duloxetine", "60 mg", "once daily"),
        ),
        ("burning feet at night", "numb toes"),
        min_age=30,
        single_weight=0.3,
        pain="burning feet",
    ),
    Condition(
        "restless legs syndrome",
        "restless legs",
        "jumpy legs",
        "Neurology",
        (
            rx("ropinirole", "0.25 mg", "once daily, 2 hours before bed"),
            rx("ferrous sulfate", "325 mg", "once daily"),
        ),
        ("a creepy-crawly feeling in my legs at night",),
        lifestyle="what I can do at night so my legs calm down",
    ),
    Condition(
        "Alzheimer's disease",
        "memory problems",
        "memory trouble",
        "Neurology",
        (
            rx("donepezil", "10 mg", "once daily at bedtime"),
            rx("memantine", "10 mg", "twice daily"),
        ),
        ("forgetting appointments", "getting turned around driving"),
        min_age=65,
        treatment_question="whether the new Alzheimer's infusions are an option",
    ),
)
