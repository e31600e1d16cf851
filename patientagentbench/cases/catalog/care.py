"""Preventive care and vaccines (US adult guidance as of 2026, simplified)."""

from __future__ import annotations

from dataclasses import dataclass

from .conditions import PREGNANCY


@dataclass(frozen=True)
class CareItem:
    topic: str  # goal topic, chart words
    ask: str  # what a patient asks
    min_age: int = 18
    max_age: int = 120
    sex: str = ""
    needs: tuple[str, ...] = ()  # any of these conditions must be present
    context: str = ""  # why it comes up now, when the generic reasons would not fit


PREVENTIVE_CARE: tuple[CareItem, ...] = (
    CareItem(
        "colorectal cancer screening",
        "whether I'm due for a colonoscopy or one of those stool test kits",
        45,
        75,
    ),
    CareItem("mammogram", "when I should get my next mammogram", 40, 74, "female"),
    CareItem("cervical cancer screening", "whether I'm due for a Pap smear", 21, 65, "female"),
    CareItem(
        "lung cancer screening",
        "whether I should get the low-dose CT scan for my lungs",
        50,
        80,
        needs=("nicotine dependence", "COPD"),
    ),
    CareItem("bone density scan", "whether I need a bone density scan", 65, 120, "female"),
    CareItem("cholesterol check", "when I should get my cholesterol checked again", 35, 75),
    CareItem("diabetes screening", "whether I should be tested for diabetes", 35, 70),
    CareItem("prostate cancer screening", "whether I should get a PSA test", 55, 69, "male"),
    CareItem(
        "abdominal aortic aneurysm screening",
        "whether I need the ultrasound for my aorta since I used to smoke",
        65,
        75,
        "male",
        ("nicotine dependence", "COPD"),
    ),
    CareItem(
        "annual wellness visit", "whether I can book my yearly Medicare wellness visit", 65, 120
    ),
    CareItem("hepatitis C screening", "whether I should get the one-time hepatitis C test", 18, 79),
    CareItem("HIV screening", "whether I should get a routine HIV test", 18, 64),
    CareItem(
        "diabetic eye exam",
        "when my next diabetic eye exam is due",
        18,
        120,
        needs=("type 2 diabetes", "type 1 diabetes"),
    ),
    CareItem("annual physical", "whether I'm due for a yearly checkup and blood work", 18, 120),
)

VACCINES: tuple[CareItem, ...] = (
    CareItem("flu vaccine", "whether it's too late in the season to get a flu shot"),
    CareItem("COVID-19 vaccine", "whether I'm due for the updated COVID shot"),
    CareItem("shingles vaccine", "whether I should get the shingles shot, the two-dose one", 50),
    CareItem("pneumococcal vaccine", "whether I need the pneumonia shot", 50),
    CareItem("RSV vaccine", "whether I should get the RSV vaccine", 60),
    CareItem(
        "Tdap booster",
        "whether I need a tetanus booster after cutting my hand on a rusty gate",
        context="The cut isn't deep, but I can't remember my last tetanus shot.",
    ),
    CareItem(
        "Tdap in pregnancy",
        "when I should get the whooping cough shot for the baby",
        18,
        44,
        "female",
        (PREGNANCY,),
        context="My midwife mentioned it at my last visit, but I forgot to ask when.",
    ),
    CareItem("HPV vaccine", "whether I can still get the HPV vaccine", 18, 45),
    CareItem("hepatitis B vaccine", "whether I need the hepatitis B series", 18, 59),
    CareItem(
        "travel vaccines",
        "what shots I need before a trip to Peru in May",
        context="I'm going to see family and will be out in the countryside for a couple of weeks.",
    ),
)
