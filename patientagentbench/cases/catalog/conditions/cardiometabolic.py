"""The conditions table, part: Diabetes, the heart and blood vessels, stroke, and the lungs.

One part of `CONDITIONS` (see the package doc); the order of the entries is the
table's order, which the case sampler draws from.
"""

from __future__ import annotations

from .condition import Condition, rx

HEART_AND_METABOLISM: tuple[Condition, ...] = (
    Condition(
        "type 2 diabetes",
        "diabetes",
        "sugar",
        "Endocrinology",
        (
            rx("metformin", "1000 mg", "twice daily with meals"),
            rx("metformin", "500 mg", "twice daily with meals"),
            rx("empagliflozin", "10 mg", "once daily"),
            rx("glipizide", "5 mg", "once daily before breakfast"),
            rx("sitagliptin", "100 mg", "once daily"),
            rx("semaglutide", "1 mg", "once weekly injection"),
        ),
        (
            "constant thirst",
            "getting up at night to pee",
            "blurry vision",
            "tingling in my feet",
        ),
        red_flags=(
            (
                "my sugar reading was 42 and I'm shaky, sweaty and can't think straight",
                "severe hypoglycemia with confusion",
            ),
        ),
        second_opinion="my doctor says it's time to start insulin",
        lifestyle="what I should be eating to bring my A1c down",
        treatment_question="whether one of the weekly shots would work better than pills",
    ),
    Condition(
        "type 1 diabetes",
        "type 1 diabetes",
        "sugar",
        "Endocrinology",
        (
            rx("insulin glargine", "22 units", "once daily at bedtime"),
            rx("insulin lispro", "6 units", "with each meal, plus correction scale"),
        ),
        ("low sugars at night", "high readings after dinner", "being really tired"),
        min_age=18,
        core=2,
        red_flags=(
            (
                "I've been throwing up since last night, my sugar meter just says HI and my breath smells fruity",
                "vomiting with very high glucose, suspected diabetic ketoacidosis",
            ),
        ),
        second_opinion="my endocrinologist wants me on an insulin pump",
        lifestyle="how to handle my insulin when I start running again",
        treatment_question="whether a continuous glucose monitor would help",
    ),
    Condition(
        "gestational diabetes",
        "gestational diabetes",
        "pregnancy sugar",
        "Obstetrics and Gynecology",
        (
            rx("insulin glargine", "10 units", "once daily at bedtime"),
            rx("metformin", "500 mg", "twice daily with meals"),
        ),
        ("high sugar readings after breakfast",),
        sex="female",
        min_age=18,
        max_age=44,
        single_weight=0.0,
        chronic=False,
        lifestyle="what I can eat to keep my sugars down for the baby",
    ),
    Condition(
        "hypertension",
        "high blood pressure",
        "high blood pressure",
        "Cardiology",
        (
            rx("lisinopril", "20 mg", "once daily"),
            rx("amlodipine", "5 mg", "once daily"),
            rx("losartan", "50 mg", "once daily"),
            rx("hydrochlorothiazide", "25 mg", "once daily in the morning"),
            rx("labetalol", "200 mg", "twice daily"),
            rx("nifedipine", "30 mg", "once daily (extended release)"),
        ),
        ("headaches in the morning", "home readings around 160 over 95", "feeling lightheaded"),
        red_flags=(
            (
                "my blood pressure is 210 over 125, I have the worst headache and my vision is blurry",
                "severely elevated blood pressure with headache and vision change",
            ),
        ),
        lifestyle="whether cutting salt and walking every day is enough",
        treatment_question="whether I could come off my blood pressure pills if I lose weight",
    ),
    Condition(
        "hyperlipidemia",
        "high cholesterol",
        "cholesterol",
        "Cardiology",
        (
            rx("atorvastatin", "20 mg", "once daily"),
            rx("rosuvastatin", "10 mg", "once daily"),
            rx("simvastatin", "20 mg", "once daily in the evening"),
        ),
        ("a cholesterol number of 260 on my last blood test",),
        lifestyle="whether changing my diet could replace the statin",
        treatment_question="whether I really need a statin at my age",
    ),
    Condition(
        "coronary artery disease",
        "heart disease",
        "heart trouble",
        "Cardiology",
        (
            rx("aspirin", "81 mg", "once daily"),
            rx("atorvastatin", "40 mg", "once daily"),
            rx("metoprolol succinate", "50 mg", "once daily"),
            rx(
                "nitroglycerin",
                "0.4 mg",
                "under the tongue as needed for chest pain, up to 3 doses 5 minutes apart",
            ),
        ),
        ("chest tightness when I climb stairs", "getting winded walking to the mailbox"),
        min_age=40,
        core=2,
        red_flags=(
            (
                "I've had crushing pressure in my chest for 30 minutes, it goes into my left arm and I'm sweating",
                "chest pressure radiating to the left arm with sweating, possible heart attack",
            ),
        ),
        second_opinion="my cardiologist wants to do a heart catheterization",
        lifestyle="how much exercise is safe for my heart",
    ),
    Condition(
        "heart failure",
        "heart failure",
        "a weak heart",
        "Cardiology",
        (
            rx("furosemide", "40 mg", "once daily in the morning"),
            rx("carvedilol", "12.5 mg", "twice daily with food"),
            rx("sacubitril/valsartan", "49/51 mg", "twice daily"),
            rx("spironolactone", "25 mg", "once daily"),
        ),
        (
            "swollen ankles",
            "getting short of breath lying flat",
            "gaining three pounds in two days",
        ),
        min_age=45,
        core=2,
        red_flags=(
            (
                "I can't catch my breath even sitting up and I'm coughing up pink frothy stuff",
                "severe breathlessness at rest with frothy sputum, possible pulmonary edema",
            ),
        ),
        second_opinion="they're talking about an implanted defibrillator",
        lifestyle="how much fluid and salt I'm allowed each day",
    ),
    Condition(
        "atrial fibrillation",
        "AFib",
        "an irregular heartbeat",
        "Cardiology",
        (
            rx("apixaban", "5 mg", "twice daily"),
            rx("metoprolol tartrate", "25 mg", "twice daily"),
            rx("warfarin", "5 mg", "once daily in the evening, adjusted to INR"),
            rx("diltiazem", "120 mg", "once daily (extended release)"),
        ),
        ("my heart fluttering", "feeling my heart race out of nowhere", "getting tired easily"),
        min_age=45,
        core=1,
        red_flags=(
            (
                "the left side of my face feels droopy, my right arm is weak and my words are coming out wrong",
                "sudden facial droop, arm weakness and speech difficulty, possible stroke",
            ),
        ),
        second_opinion="my cardiologist recommended an ablation",
        treatment_question="whether I have to stay on a blood thinner forever",
    ),
    Condition(
        "history of deep vein thrombosis",
        "a blood clot in my leg",
        "a blood clot in my leg",
        "Hematology",
        (
            rx("apixaban", "5 mg", "twice daily"),
            rx("warfarin", "5 mg", "once daily in the evening, adjusted to INR"),
        ),
        ("some swelling in the same leg",),
        past=True,
        red_flags=(
            (
                "I suddenly got short of breath and I have a sharp pain in my chest when I breathe in",
                "sudden breathlessness and pleuritic chest pain, possible pulmonary embolism",
            ),
        ),
        treatment_question="how long I need to stay on the blood thinner",
    ),
    Condition(
        "peripheral artery disease",
        "poor circulation in my legs",
        "bad circulation",
        "Vascular Surgery",
        (
            rx("clopidogrel", "75 mg", "once daily"),
            rx("atorvastatin", "40 mg", "once daily"),
            rx("cilostazol", "100 mg", "twice daily, before breakfast and dinner"),
        ),
        ("calf cramps when I walk a block", "cold feet"),
        min_age=50,
        core=2,
        pain="calf pain when I walk",
        red_flags=(
            (
                "my left foot went cold and pale this morning and it really hurts, I can barely feel my toes",
                "acute cold, pale, painful foot, possible acute limb ischemia",
            ),
        ),
        second_opinion="the vascular surgeon wants to put in a stent",
        lifestyle="whether a walking program would really help my legs",
    ),
    Condition(
        "history of stroke",
        "a stroke",
        "a stroke",
        "Neurology",
        (rx("clopidogrel", "75 mg", "once daily"), rx("atorvastatin", "80 mg", "once daily")),
        ("some weakness in my right hand", "getting tired easily"),
        min_age=45,
        past=True,
        core=2,
        red_flags=(
            (
                "my speech got slurred about an hour ago and my right arm feels heavy again",
                "new slurred speech and arm weakness, possible recurrent stroke",
            ),
        ),
        lifestyle="what I can do so I don't have another stroke",
    ),
    Condition(
        "asthma",
        "asthma",
        "asthma",
        "Pulmonology",
        (
            rx("albuterol", "90 mcg, 2 puffs", "every 4 to 6 hours as needed"),
            rx("fluticasone/salmeterol", "250/50 mcg, 1 inhalation", "twice daily"),
            rx("budesonide/formoterol", "160/4.5 mcg, 2 puffs", "twice daily"),
            rx("montelukast", "10 mg", "once daily in the evening"),
        ),
        (
            "wheezing at night",
            "coughing after I exercise",
            "needing my rescue inhaler more than usual",
        ),
        red_flags=(
            (
                "I've used my inhaler four times in the last hour and I still can't get a full sentence out",
                "severe asthma attack not relieved by rescue inhaler",
            ),
        ),
        lifestyle="whether it's safe to start running with my asthma",
        treatment_question="whether there's something better than using my inhaler every day",
    ),
    Condition(
        "COPD",
        "COPD",
        "emphysema",
        "Pulmonology",
        (
            rx("tiotropium", "18 mcg, 1 capsule inhaled", "once daily"),
            rx("albuterol", "90 mcg, 2 puffs", "every 4 to 6 hours as needed"),
            rx("budesonide/formoterol", "160/4.5 mcg, 2 puffs", "twice daily"),
        ),
        (
            "getting winded doing the dishes",
            "coughing up more phlegm than usual",
            "more wheezing",
        ),
        min_age=40,
        red_flags=(
            (
                "I'm so short of breath I can't walk to the bathroom and my lips look bluish",
                "severe breathlessness with cyanosis",
            ),
        ),
        second_opinion="my lung doctor wants me on home oxygen",
        lifestyle="whether pulmonary rehab is worth the drive",
    ),
)
