"""Conditions with the medicines an outpatient clinic would really have on file for them.

The table is written in parts by body system (one module each) and joined here in a fixed
order: the case sampler draws from it by position, so the order is part of the data.
"""

from __future__ import annotations

from .cardiometabolic import HEART_AND_METABOLISM
from .condition import Condition, Regimen
from .joints_and_nerves import JOINTS_AND_NERVES
from .mind_blood_skin import MIND_BLOOD_AND_SKIN
from .organ_systems import ORGAN_SYSTEMS

CONDITIONS: dict[str, Condition] = {
    c.name: c
    for c in (*HEART_AND_METABOLISM, *ORGAN_SYSTEMS, *JOINTS_AND_NERVES, *MIND_BLOOD_AND_SKIN)
}

PREGNANCY = "pregnancy"

# Conditions that travel together (DESIGN §3: weighted higher than any single condition).
MULTIMORBIDITY: tuple[tuple[tuple[str, ...], float], ...] = (
    (("type 2 diabetes", "hypertension"), 5),
    (("type 2 diabetes", "hypertension", "hyperlipidemia"), 5),
    (("hypertension", "hyperlipidemia"), 4),
    (("coronary artery disease", "hyperlipidemia", "hypertension"), 3),
    (("heart failure", "atrial fibrillation"), 3),
    (("heart failure", "chronic kidney disease stage 3", "type 2 diabetes"), 2),
    (("atrial fibrillation", "hypertension"), 3),
    (("atrial fibrillation", "history of stroke"), 1.5),
    (("COPD", "nicotine dependence"), 3),
    (("COPD", "heart failure"), 2),
    (("asthma", "allergic rhinitis"), 3),
    (("asthma", "GERD"), 2),
    (("major depressive disorder", "generalized anxiety disorder"), 4),
    (("chronic low back pain", "major depressive disorder"), 2),
    (("fibromyalgia", "insomnia"), 2),
    (("osteoarthritis", "hypertension"), 3),
    (("osteoarthritis", "obesity", "type 2 diabetes"), 2),
    (("obesity", "type 2 diabetes"), 3),
    (("hypothyroidism", "hyperlipidemia"), 2),
    (("rheumatoid arthritis", "osteoporosis"), 2),
    (("gout", "hypertension", "chronic kidney disease stage 3"), 2),
    (("type 2 diabetes", "diabetic peripheral neuropathy"), 3),
    (("chronic kidney disease stage 3", "hypertension", "type 2 diabetes"), 2),
    (("peripheral artery disease", "type 2 diabetes", "nicotine dependence"), 1.5),
    (("Parkinson's disease", "major depressive disorder"), 1.5),
    (("Alzheimer's disease", "hypertension"), 2),
    (("bipolar disorder", "hypothyroidism"), 1.5),  # lithium-induced, a classic pairing
    (("post-traumatic stress disorder", "insomnia"), 2),
    (("post-traumatic stress disorder", "alcohol use disorder"), 1.5),
    (("opioid use disorder", "generalized anxiety disorder"), 1.5),
    (("opioid use disorder", "chronic hepatitis C"), 1.5),
    (("HIV", "major depressive disorder"), 1.5),
    (("HIV", "hyperlipidemia"), 1.5),
    (("breast cancer (in remission)", "osteoporosis"), 1.5),
    (("breast cancer (in remission)", "major depressive disorder"), 1.5),
    (("pregnancy", "asthma"), 1.5),
    (("pregnancy", "gestational diabetes"), 1.5),
    (("pregnancy", "hypothyroidism"), 1.5),
    (("pregnancy", "hypertension"), 1),
    (("pregnancy", "major depressive disorder"), 1),
    (("polycystic ovary syndrome", "obesity"), 1.5),
    (("menopause symptoms", "osteoporosis"), 1.5),
    (("menopause symptoms", "insomnia"), 1.5),
    (("benign prostatic hyperplasia", "hypertension"), 2),
    (("erectile dysfunction", "coronary artery disease"), 1.5),
    (("erectile dysfunction", "type 2 diabetes", "hypertension"), 1.5),
    (("epilepsy", "major depressive disorder"), 1),
    (("migraine with aura", "generalized anxiety disorder"), 1.5),
    (("Crohn's disease", "iron deficiency anemia"), 1.5),
    (("cirrhosis", "alcohol use disorder"), 1.5),
    (("psoriasis", "hypertension"), 1),
    (("history of deep vein thrombosis", "obesity"), 1),
    (("systemic lupus erythematosus", "chronic kidney disease stage 3"), 1),
    (("glaucoma", "type 2 diabetes"), 1),
    (("insomnia", "generalized anxiety disorder"), 1.5),
)

__all__ = ["CONDITIONS", "MULTIMORBIDITY", "PREGNANCY", "Condition", "Regimen"]
