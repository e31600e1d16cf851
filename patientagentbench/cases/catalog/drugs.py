"""Medicines: what a patient knows each by, and what it tends to do to them.

Generic names in lower case are the names the sandbox and the outcome checks use; brand and
lay names are how patients say them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Drug:
    """What a patient knows a medicine by, and what it tends to do to them."""

    name: str  # generic, lower case: the name the sandbox and the checks use
    brand: str = ""
    lay: str = ""  # what a patient calls it: "water pill", "blood thinner"
    side_effects: tuple[str, ...] = ()
    controlled: str = ""  # DEA schedule ("II", "III", "IV") limits refills
    as_needed: bool = False


DRUGS: dict[str, Drug] = {
    d.name: d
    for d in (
        # diabetes and weight
        Drug(
            "metformin",
            "Glucophage",
            "sugar pill",
            ("an upset stomach", "diarrhea", "a metallic taste in my mouth"),
        ),
        Drug(
            "glipizide",
            "Glucotrol",
            "sugar pill",
            ("shaky spells when I skip a meal", "some weight gain"),
        ),
        Drug(
            "empagliflozin",
            "Jardiance",
            "sugar pill",
            ("a lot more trips to the bathroom", "a yeast infection"),
        ),
        Drug("sitagliptin", "Januvia", "sugar pill", ("a stuffy nose", "headaches")),
        Drug(
            "semaglutide",
            "Ozempic",
            "weekly shot",
            ("nausea", "a constant full feeling", "constipation"),
        ),
        Drug(
            "insulin glargine",
            "Lantus",
            "long-acting insulin",
            ("low sugars overnight", "some weight gain"),
        ),
        Drug("insulin lispro", "Humalog", "mealtime insulin", ("low sugars after meals",)),
        # blood pressure, heart, circulation
        Drug(
            "lisinopril",
            "Zestril",
            "blood pressure pill",
            ("a dry cough that won't quit", "dizziness when I stand up"),
        ),
        Drug("losartan", "Cozaar", "blood pressure pill", ("dizziness", "tiredness")),
        Drug("amlodipine", "Norvasc", "blood pressure pill", ("swollen ankles", "flushing")),
        Drug(
            "hydrochlorothiazide",
            "",
            "water pill",
            ("a lot more trips to the bathroom", "leg cramps"),
        ),
        Drug("labetalol", "", "blood pressure pill", ("dizziness", "tiredness")),
        Drug("nifedipine", "Procardia XL", "blood pressure pill", ("headaches", "swollen ankles")),
        Drug("atorvastatin", "Lipitor", "cholesterol pill", ("muscle aches", "achy joints")),
        Drug("rosuvastatin", "Crestor", "cholesterol pill", ("muscle aches",)),
        Drug("simvastatin", "Zocor", "cholesterol pill", ("muscle aches", "cramps in my calves")),
        Drug("aspirin", "", "baby aspirin", ("easy bruising", "an upset stomach")),
        Drug(
            "metoprolol succinate",
            "Toprol XL",
            "heart pill",
            ("tiredness", "cold hands", "dizziness"),
        ),
        Drug("metoprolol tartrate", "Lopressor", "heart pill", ("tiredness", "dizziness")),
        Drug(
            "nitroglycerin",
            "Nitrostat",
            "nitro tablets",
            ("a pounding headache", "lightheadedness"),
            as_needed=True,
        ),
        Drug(
            "furosemide",
            "Lasix",
            "water pill",
            ("constant trips to the bathroom", "leg cramps", "dizziness"),
        ),
        Drug("carvedilol", "Coreg", "heart pill", ("dizziness", "tiredness")),
        Drug("sacubitril/valsartan", "Entresto", "heart pill", ("dizziness", "a cough")),
        Drug("spironolactone", "Aldactone", "water pill", ("sore, tender breasts", "dizziness")),
        Drug(
            "apixaban", "Eliquis", "blood thinner", ("easy bruising", "bleeding gums when I brush")
        ),
        Drug("warfarin", "Coumadin", "blood thinner", ("easy bruising", "nosebleeds")),
        Drug("diltiazem", "Cardizem CD", "heart rate pill", ("swollen ankles", "constipation")),
        Drug("clopidogrel", "Plavix", "blood thinner", ("bruising",)),
        Drug("cilostazol", "Pletal", "leg circulation pill", ("headaches", "loose stools")),
        # lungs, allergy, ENT, eyes
        Drug(
            "albuterol", "ProAir", "rescue inhaler", ("shakiness", "a racing heart"), as_needed=True
        ),
        Drug(
            "fluticasone/salmeterol",
            "Advair",
            "daily inhaler",
            ("a hoarse voice", "thrush in my mouth"),
        ),
        Drug(
            "budesonide/formoterol", "Symbicort", "daily inhaler", ("a hoarse voice", "shakiness")
        ),
        Drug("montelukast", "Singulair", "allergy pill", ("vivid dreams", "mood changes")),
        Drug("tiotropium", "Spiriva", "daily inhaler", ("dry mouth",)),
        Drug("cetirizine", "Zyrtec", "allergy pill", ("drowsiness",)),
        Drug("fluticasone nasal spray", "Flonase", "nose spray", ("nosebleeds", "a dry nose")),
        Drug("meclizine", "Antivert", "dizziness pill", ("drowsiness",), as_needed=True),
        Drug("latanoprost", "Xalatan", "eye drops", ("red eyes", "darker eyelashes")),
        Drug("timolol eye drops", "Timoptic", "eye drops", ("stinging eyes",)),
        # hormones, bones
        Drug("levothyroxine", "Synthroid", "thyroid pill", ("a racing heart", "the jitters")),
        Drug("methimazole", "Tapazole", "thyroid pill", ("an itchy rash", "achy joints")),
        Drug("alendronate", "Fosamax", "bone pill", ("heartburn", "pain when I swallow")),
        Drug("calcium carbonate with vitamin D", "Caltrate", "calcium pill", ("constipation",)),
        Drug("estradiol patch", "Vivelle-Dot", "hormone patch", ("sore breasts", "spotting")),
        Drug("progesterone", "Prometrium", "hormone pill", ("drowsiness", "bloating")),
        Drug(
            "ethinyl estradiol/norgestimate",
            "Sprintec",
            "birth control pill",
            ("spotting between periods", "sore breasts"),
        ),
        Drug("norethindrone acetate", "Aygestin", "hormone pill", ("spotting", "bloating")),
        Drug("prenatal vitamin", "", "prenatal vitamin", ("nausea", "constipation")),
        # stomach, bowel, liver
        Drug("omeprazole", "Prilosec", "acid pill", ("headaches", "diarrhea")),
        Drug("pantoprazole", "Protonix", "acid pill", ("headaches", "diarrhea")),
        Drug("famotidine", "Pepcid", "acid pill", ("headaches",)),
        Drug(
            "dicyclomine",
            "Bentyl",
            "stomach cramp pill",
            ("dry mouth", "blurry vision"),
            as_needed=True,
        ),
        Drug("budesonide", "Entocort EC", "steroid capsule", ("a puffy face", "trouble sleeping")),
        Drug("azathioprine", "Imuran", "immune pill", ("nausea", "a run-down feeling")),
        Drug(
            "adalimumab",
            "Humira",
            "every-other-week shot",
            ("redness where I inject", "one cold after another"),
        ),
        Drug("mesalamine", "Lialda", "colitis pill", ("headaches", "nausea")),
        Drug("lactulose", "", "lactulose syrup", ("bloating", "diarrhea")),
        Drug("rifaximin", "Xifaxan", "liver antibiotic", ("nausea",)),
        Drug("entecavir", "Baraclude", "hepatitis pill", ("headaches", "tiredness")),
        # kidney, bladder, prostate, sexual health
        Drug("sodium bicarbonate", "", "bicarb tablets", ("bloating",)),
        Drug("potassium citrate", "Urocit-K", "kidney stone pill", ("an upset stomach",)),
        Drug(
            "tamsulosin", "Flomax", "prostate pill", ("dizziness when I stand up", "a stuffy nose")
        ),
        Drug("finasteride", "Proscar", "prostate pill", ("lower sex drive",)),
        Drug("oxybutynin", "Ditropan XL", "bladder pill", ("dry mouth", "constipation")),
        Drug(
            "mirabegron",
            "Myrbetriq",
            "bladder pill",
            ("headaches", "higher blood pressure readings"),
        ),
        Drug("nitrofurantoin", "Macrobid", "bladder antibiotic", ("nausea", "headaches")),
        Drug(
            "sildenafil", "Viagra", "", ("headaches", "flushing", "a stuffy nose"), as_needed=True
        ),
        # joints, pain, nerves
        Drug("acetaminophen", "Tylenol", "Tylenol", ("an upset stomach",), as_needed=True),
        Drug("meloxicam", "Mobic", "arthritis pill", ("heartburn", "swollen ankles")),
        Drug("diclofenac gel", "Voltaren", "arthritis gel", ("irritated skin where I rub it in",)),
        Drug(
            "naproxen",
            "Naprosyn",
            "anti-inflammatory",
            ("stomach pain", "heartburn"),
            as_needed=True,
        ),
        Drug(
            "methotrexate",
            "Trexall",
            "weekly arthritis pill",
            ("mouth sores", "nausea the day after"),
        ),
        Drug("folic acid", "", "folic acid", ()),
        Drug("hydroxychloroquine", "Plaquenil", "", ("an upset stomach", "blurry vision")),
        Drug("allopurinol", "Zyloprim", "gout pill", ("an itchy rash", "an upset stomach")),
        Drug("colchicine", "Colcrys", "gout pill", ("diarrhea", "stomach cramps")),
        Drug("prednisone", "", "steroid", ("trouble sleeping", "a huge appetite", "mood swings")),
        Drug(
            "cyclobenzaprine",
            "Flexeril",
            "muscle relaxer",
            ("drowsiness", "dry mouth"),
            as_needed=True,
        ),
        Drug("duloxetine", "Cymbalta", "", ("nausea", "sweating", "trouble sleeping")),
        Drug(
            "pregabalin",
            "Lyrica",
            "nerve pill",
            ("dizziness", "weight gain", "brain fog"),
            controlled="V",
        ),
        Drug("gabapentin", "Neurontin", "nerve pill", ("drowsiness", "dizziness", "swollen feet")),
        Drug("hydroxyurea", "Hydrea", "", ("tiredness", "nausea")),
        # brain and nerves
        Drug(
            "sumatriptan",
            "Imitrex",
            "migraine pill",
            ("a tight feeling in my chest", "tingling"),
            as_needed=True,
        ),
        Drug(
            "topiramate",
            "Topamax",
            "migraine prevention pill",
            ("tingling in my fingers", "trouble finding words"),
        ),
        Drug("propranolol", "Inderal LA", "", ("tiredness", "vivid dreams")),
        Drug(
            "levetiracetam", "Keppra", "seizure pill", ("irritability", "mood swings", "tiredness")
        ),
        Drug("lamotrigine", "Lamictal", "", ("a rash", "dizziness")),
        Drug(
            "carbidopa/levodopa",
            "Sinemet",
            "Parkinson's pill",
            ("nausea", "lightheadedness when I stand"),
        ),
        Drug("ropinirole", "Requip", "restless legs pill", ("nausea", "sleepiness during the day")),
        Drug("dimethyl fumarate", "Tecfidera", "MS pill", ("flushing", "stomach cramps")),
        Drug("donepezil", "Aricept", "memory pill", ("vivid dreams", "nausea", "a slow pulse")),
        Drug("memantine", "Namenda", "memory pill", ("dizziness", "headaches")),
        # mental health, sleep, substance use
        Drug(
            "sertraline",
            "Zoloft",
            "antidepressant",
            ("nausea", "trouble sleeping", "less interest in sex"),
        ),
        Drug(
            "escitalopram",
            "Lexapro",
            "antidepressant",
            ("nausea", "a flat, numb feeling", "sweating"),
        ),
        Drug("fluoxetine", "Prozac", "antidepressant", ("trouble sleeping", "the jitters")),
        Drug(
            "bupropion",
            "Wellbutrin XL",
            "antidepressant",
            ("trouble sleeping", "dry mouth", "jitteriness"),
        ),
        Drug("buspirone", "Buspar", "anxiety pill", ("dizziness", "headaches")),
        Drug(
            "hydroxyzine", "Vistaril", "anxiety pill", ("drowsiness", "dry mouth"), as_needed=True
        ),
        Drug(
            "clonazepam", "Klonopin", "anxiety pill", ("drowsiness", "brain fog"), controlled="IV"
        ),
        Drug(
            "lithium",
            "Lithobid",
            "mood stabilizer",
            ("a hand tremor", "being thirsty all the time"),
        ),
        Drug("quetiapine", "Seroquel", "", ("grogginess in the morning", "weight gain")),
        Drug("prazosin", "Minipress", "nightmare pill", ("dizziness when I stand up",)),
        Drug(
            "methylphenidate",
            "Concerta",
            "ADHD medicine",
            ("a poor appetite", "trouble sleeping"),
            controlled="II",
        ),
        Drug(
            "amphetamine/dextroamphetamine",
            "Adderall XR",
            "ADHD medicine",
            ("a poor appetite", "a racing heart"),
            controlled="II",
        ),
        Drug("trazodone", "Desyrel", "sleep pill", ("morning grogginess", "dizziness")),
        Drug(
            "zolpidem",
            "Ambien",
            "sleeping pill",
            ("sleepwalking", "grogginess"),
            controlled="IV",
            as_needed=True,
        ),
        Drug("risperidone", "Risperdal", "", ("weight gain", "stiffness")),
        Drug("aripiprazole", "Abilify", "", ("restlessness", "trouble sleeping")),
        Drug("naltrexone", "Revia", "", ("nausea", "headaches")),
        Drug(
            "buprenorphine/naloxone",
            "Suboxone",
            "Suboxone",
            ("constipation", "headaches"),
            controlled="III",
        ),
        Drug(
            "nicotine patch",
            "NicoDerm CQ",
            "nicotine patch",
            ("vivid dreams", "itchy skin under the patch"),
        ),
        Drug("varenicline", "Chantix", "quit-smoking pill", ("strange dreams", "nausea")),
        # blood, skin, infection, cancer
        Drug(
            "ferrous sulfate", "", "iron pill", ("constipation", "dark stools", "an upset stomach")
        ),
        Drug("cyanocobalamin", "", "B12", ()),
        Drug("clobetasol ointment", "Temovate", "steroid ointment", ("thin skin where I use it",)),
        Drug("calcipotriene cream", "Dovonex", "psoriasis cream", ("skin irritation",)),
        Drug("triamcinolone cream", "Kenalog", "steroid cream", ("thin skin where I use it",)),
        Drug("doxycycline", "Vibramycin", "antibiotic", ("bad sunburns", "an upset stomach")),
        Drug("tretinoin cream", "Retin-A", "pimple cream", ("dry, peeling skin", "redness")),
        Drug("metronidazole gel", "MetroGel", "face gel", ("dry skin",)),
        Drug("valacyclovir", "Valtrex", "antiviral", ("headaches",)),
        Drug(
            "bictegravir/emtricitabine/tenofovir alafenamide",
            "Biktarvy",
            "HIV pill",
            ("nausea", "headaches"),
        ),
        Drug("anastrozole", "Arimidex", "cancer pill", ("achy joints", "hot flashes")),
        Drug("tamoxifen", "", "cancer pill", ("hot flashes",)),
        # asked for, rarely on file
        Drug("ibuprofen", "Advil", "Advil", ("stomach pain",), as_needed=True),
        Drug("tramadol", "Ultram", "pain pill", ("nausea", "dizziness"), controlled="IV"),
        Drug("amoxicillin", "Amoxil", "antibiotic", ("diarrhea",)),
        Drug("amoxicillin/clavulanate", "Augmentin", "antibiotic", ("diarrhea",)),
        Drug("sulfamethoxazole/trimethoprim", "Bactrim", "antibiotic", ("nausea",)),
        Drug("clarithromycin", "Biaxin", "antibiotic", ("a bad taste in my mouth",)),
        Drug("fluconazole", "Diflucan", "yeast infection pill", ()),
        Drug("ciprofloxacin", "Cipro", "antibiotic", ("nausea",)),
        Drug("dextromethorphan", "Robitussin DM", "cough syrup", (), as_needed=True),
        Drug("alprazolam", "Xanax", "anxiety pill", ("drowsiness",), controlled="IV"),
        Drug("diphenhydramine", "Benadryl", "Benadryl", ("grogginess",), as_needed=True),
        Drug("metoclopramide", "Reglan", "nausea pill", ("restlessness",)),
        Drug("potassium chloride", "Klor-Con", "potassium pill", ()),
        Drug("isotretinoin", "Accutane", "pimple pill", ("dry lips",)),
        Drug(
            "codeine/acetaminophen",
            "Tylenol #3",
            "Tylenol with codeine",
            ("constipation",),
            controlled="III",
        ),
        Drug("ondansetron", "Zofran", "nausea pill", ("constipation",), as_needed=True),
        Drug("sofosbuvir/velpatasvir", "Epclusa", "hepatitis C pill", ("headaches", "tiredness")),
        Drug("tirzepatide", "Zepbound", "weekly shot", ("nausea", "constipation")),
    )
}

# Medicines taken off the US market: a patient asking for one cannot be given it.
WITHDRAWN_DRUGS = {
    "ranitidine": ("Zantac", "heartburn", "acid pill", "withdrawn from the US market in 2020"),
    "lorcaserin": ("Belviq", "weight loss", "diet pill", "withdrawn from the US market in 2020"),
    "propoxyphene": (
        "Darvocet",
        "my arthritis pain",
        "pain pill",
        "withdrawn from the US market in 2010",
    ),
}
