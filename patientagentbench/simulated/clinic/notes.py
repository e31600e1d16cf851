"""General, safe guidance the agent may give on a topic the patient raises.

The agent knows only the patient's words, so it recognises a topic by keywords and gives the
kind of general, non-diagnostic information a clinic's assistant may give: what commonly
causes a symptom (things a doctor can check), the warning signs that mean "don't wait", and
what the doctor will consider. Warning signs are always said as conditions ("If ..."), never
as advice to go now. Plain data, so a clinician can review it in one place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .turn import PCP_REPLY, Turn


@dataclass(frozen=True)
class Note:
    pattern: str
    causes: str = ""  # "not drinking enough, ..." (after "can have several causes, such as")
    watch: str = ""  # "you also feel confused ..." (after "If")
    meanwhile: str = ""  # a sentence: what helps while waiting


SYMPTOM_NOTES = (
    Note(
        r"thirst|dry mouth|drinking (?:a lot|so much)",
        "not drinking enough, hot weather, some medicines such as water pills, or high blood "
        "sugar - which a quick blood test can check",
        "you also feel confused or very drowsy, or you're vomiting and can't keep fluids down",
        "Keep drinking water, and jot down roughly how much you drink and how often you pass "
        "urine - that helps your doctor.",
    ),
    Note(
        r"tingl|numb|pins and needles|burning feet|cold feet",
        "pressure on a nerve, low vitamin B12, thyroid problems or high blood sugar - things "
        "a doctor can check with an exam and blood tests",
        "it comes on suddenly, affects one side of your face or body, or comes with weakness or "
        "trouble speaking, call 911",
        "Check your feet every day for cuts or sores you might not feel, and note when it happens.",
    ),
    Note(
        r"vision|blurr|seeing double|eyesight|zigzag",
        "needing new glasses, dry eyes, or changes in blood sugar or blood pressure",
        "your sight suddenly gets worse, you see a shadow or curtain over part of it, or you "
        "have eye pain or a severe headache",
        "Please avoid driving while your vision isn't clear, and note whether it's one eye or "
        "both.",
    ),
    Note(
        r"joint|knee|hip\b|knuckle|achy|aching|stiff",
        "wear and tear, inflammation, an old injury or sometimes a medicine's side effect",
        "a joint becomes hot, red and swollen, or you have a fever with it",
        "Gentle movement, heat or ice, and resting after activity often help in the meantime.",
    ),
    Note(
        r"sleep(?:ing)? (?:too much|a lot|all the time)|tired|fatigue|exhausted|no energy|"
        r"wiped out|run down",
        "poor sleep, low thyroid, low iron, low mood or a medicine's side effect - several of "
        "these show up on routine blood tests",
        "you feel faint or short of breath, or you have thoughts of harming yourself (you can "
        "call or text 988 any time)",
        "Keeping regular sleep and wake times, and noting how you feel through the day, can "
        "help your doctor.",
    ),
    Note(
        r"panic",
        "stress, anxiety, too much caffeine, an overactive thyroid or a medicine's side effect "
        "- and there are good treatments for all of these",
        "you have chest pain, trouble breathing or fainting, or thoughts of harming yourself",
        "Slow breathing - in for four counts, out for six - can help an attack pass, and "
        "cutting back on caffeine helps some people.",
    ),
    Note(
        r"racing thoughts|worr(?:y|ying) all the time|anxious|anxiety|restless|mood swings|"
        r"feeling down|can't (?:focus|concentrate)|trouble (?:focusing|concentrating)",
        "stress, anxiety, poor sleep, mood changes, too much caffeine or a medicine's side effect",
        "you go several nights without sleep, feel out of control, or have thoughts of "
        "harming yourself (you can call or text 988 any time)",
        "A regular sleep schedule and writing down when it happens can help you and your doctor.",
    ),
    Note(
        r"headache|migraine",
        "tension, poor sleep, skipped meals, blood pressure or overusing pain relievers",
        "you get a sudden, severe headache unlike any before, or a headache with fever and a "
        "stiff neck, weakness or confusion",
        "A simple headache diary - when it starts, what you ate and how you slept - helps "
        "your doctor a lot.",
    ),
    Note(
        r"cough|wheez|phlegm",
        "a lingering cold, allergies, asthma, acid reflux or some blood pressure medicines",
        "you cough up blood, have trouble breathing, or have a high fever",
        "Warm drinks and avoiding smoke help many people while it settles.",
    ),
    Note(
        r"dizz|lighthead|off balance|spinning|vertigo",
        "inner-ear problems, dehydration, blood pressure changes or a medicine's side effect",
        "you faint, or the dizziness comes with chest pain, a severe headache, weakness or "
        "trouble speaking",
        "Get up slowly from sitting or lying down, and drink enough fluids.",
    ),
    Note(
        r"stomach|belly|bloat|diarrh|constipat|heartburn|nause|sour taste|burning in my chest",
        "food triggers, reflux, an infection, stress or a medicine's side effect",
        "you have severe pain, black or bloody stools, or vomiting you can't stop",
        "Smaller meals and noting which foods set it off can help in the meantime.",
    ),
    Note(
        r"rash|itch|skin|acne|breakout|patches|mole",
        "irritation, allergies, eczema or a reaction to a product or medicine",
        "it spreads fast, blisters, or comes with fever or swelling of your face or lips",
        "A gentle, fragrance-free moisturiser and avoiding new products often help.",
    ),
    Note(
        r"swell|swollen|puffy",
        "sitting or standing a lot, salt, some medicines, or problems with the heart, kidneys "
        "or veins - things a doctor can check",
        "one leg is suddenly swollen and painful, or you're short of breath",
        "Raising your legs when you sit can help.",
    ),
    Note(
        r"\bpee\b|urinat|bathroom|bladder|weak stream|urine",
        "an infection, drinking a lot late in the day, prostate or bladder changes, blood "
        "sugar, or some medicines such as water pills",
        "you can't pass urine at all, or you have a fever, back pain or blood in your urine",
        "Cutting back on drinks in the evening can help with night-time trips.",
    ),
    Note(
        r"weight|appetite",
        "changes in diet or activity, thyroid problems, blood sugar, mood or some medicines",
        "you're losing weight quickly without trying, or it comes with night sweats or fever",
        "Weighing yourself at the same time each week gives your doctor useful numbers.",
    ),
    Note(
        r"heart|flutter|palpitat|racing",
        "caffeine, stress, thyroid problems or a heart rhythm change that a simple heart "
        "tracing can check",
        "it comes with chest pain, fainting or trouble breathing, call 911",
        "Noting when it happens and how long it lasts helps your doctor.",
    ),
)
GENERAL_NOTE = Note(
    "",
    "several different things, which a doctor can sort out with an exam and, if needed, a "
    "few simple tests",
    "it suddenly gets much worse, or you develop chest pain, trouble breathing, fainting or "
    "weakness on one side",
    "Keeping a short note of when it happens and what makes it better or worse helps your doctor.",
)
PAIN_NOTES = (
    (
        r"knee|joint|hip\b|hands|knuckle|toe|arthritis",
        "For aching joints, heat or ice, gentle exercise or physical therapy, and a little "
        "weight loss where it applies often help, alongside medicines a doctor can tailor",
    ),
    (
        r"back|neck|leg",
        "For back and leg pain, staying gently active, heat and physical therapy help many "
        "people more than rest",
    ),
    (
        r"migraine|headache",
        "For migraines there are medicines you take when an attack starts and preventive "
        "treatments, and a headache diary helps your doctor choose between them",
    ),
    (
        r"belly|cramp|period",
        "For cramping pain, heat and regular meals help some people, and a doctor can look "
        "at what's causing it and which medicines are safe for you",
    ),
)
PAIN_GENERAL = (
    "In general, options range from heat or ice and physical therapy to different medicines"
)
PREVENTIVE_NOTES = (
    (
        r"colon|stool|colorectal",
        "For people at average risk, colorectal screening usually starts at 45 - either a "
        "stool test kit you do at home (every year or every few years, depending on the kit) "
        "or a colonoscopy about every 10 years. A family history or past polyps can change "
        "that.",
    ),
    (
        r"mammogram|breast",
        "Mammograms are generally recommended every 1 to 2 years from age 40, and your "
        "history can change the timing.",
    ),
    (
        r"\bpap\b|cervical",
        "Cervical screening is usually a Pap test every 3 years, or HPV testing every 5 years "
        "from age 30, up to age 65 - depending on your past results.",
    ),
    (
        r"\blung|\bct scan",
        "The low-dose lung CT scan is recommended yearly for people 50 to 80 with a heavy "
        "smoking history who still smoke or quit within the last 15 years.",
    ),
    (
        r"bone density",
        "A bone density scan is recommended for women from 65, or earlier with risk factors "
        "like a past fracture or steroid use.",
    ),
    (
        r"cholesterol",
        "Most adults have cholesterol checked every 4 to 6 years, and more often with heart "
        "risks or while on treatment.",
    ),
    (
        r"diabetes|sugar",
        "Diabetes screening is a simple blood test, such as an A1c, generally recommended for "
        "adults 35 to 70 who are overweight and for anyone with other risk factors like a "
        "family history.",
    ),
    (
        r"\bpsa\b|prostate",
        "A PSA test is a personal choice for men 55 to 69 - it has benefits and downsides "
        "that are worth talking through with your doctor.",
    ),
    (
        r"aorta|aneurysm",
        "A one-time ultrasound of the aorta is recommended for men 65 to 75 who have ever smoked.",
    ),
    (
        r"wellness visit|medicare",
        "Medicare covers a yearly wellness visit once every 12 months, and our office can book "
        "it for you.",
    ),
    (
        r"hepatitis c",
        "A one-time hepatitis C blood test is recommended for all adults 18 to 79.",
    ),
    (
        r"\bhiv\b",
        "A routine HIV test is recommended at least once for everyone 15 to 65, and more often "
        "with ongoing risk.",
    ),
    (
        r"eye exam",
        "People with diabetes should have an eye exam about once a year, or every 1 to 2 years "
        "if past exams were normal.",
    ),
    (
        r"physical|checkup|check-up|blood work",
        "How often you need a checkup and blood work depends on your age and conditions - for "
        "many adults it's about once a year.",
    ),
)
PREVENTIVE_GENERAL = (
    "Screening recommendations depend on your age, your risk factors and when you were last "
    "checked."
)
VACCINE_NOTES = (
    (
        r"\bflu\b",
        "It's usually not too late - the flu shot is recommended for nearly everyone as long "
        "as flu is going around, which is often into the spring.",
    ),
    (
        r"covid",
        "Updated COVID vaccines are recommended for many people, especially those 65 and over "
        "or with health conditions, and the timing depends on when you had your last dose or "
        "infection.",
    ),
    (
        r"shingles",
        "The shingles vaccine is two doses, 2 to 6 months apart, recommended from age 50 - "
        "even if you've had shingles before.",
    ),
    (
        r"pneumonia|pneumococcal",
        "Pneumonia vaccines are recommended for adults 50 and over, and for younger adults "
        "with certain health conditions.",
    ),
    (
        r"\brsv\b",
        "The RSV vaccine is a single shot, recommended for everyone 75 and over and for some "
        "younger adults with health risks such as heart or lung disease.",
    ),
    (
        r"whooping|baby|pregnan",
        "The whooping cough (Tdap) shot is recommended in every pregnancy, usually between 27 "
        "and 36 weeks, to protect the baby.",
    ),
    (
        r"tetanus|tdap|rusty|\bcut\b",
        "A tetanus booster is recommended after a dirty or deep wound if your last one was "
        "more than 5 years ago - so if you can't remember, it's worth getting one soon.",
    ),
    (
        r"\bhpv\b",
        "The HPV vaccine is routinely given up to age 26; adults 27 to 45 who missed it can "
        "sometimes still benefit, and that's a decision to make with your doctor.",
    ),
    (
        r"hepatitis b",
        "The hepatitis B vaccine is recommended for adults up to 59, and for older adults with "
        "risk factors.",
    ),
    (
        r"travel|trip|abroad",
        "Travel vaccines depend on where you're going and what you'll be doing - yellow fever, "
        "typhoid or hepatitis A come up for some destinations - and some need a few weeks to "
        "work, so it's best to sort it out well before you leave. A travel clinic can also "
        "advise.",
    ),
)
VACCINE_GENERAL = (
    "Which vaccines you're due for depends on your age, your health and what you've had before."
)
LIFESTYLE_NOTES = (
    (
        r"smok|cigarette|vap",
        "Quitting is one of the best things you can do for your health, and support makes a "
        "real difference: nicotine patches or gum, prescription medicines and free coaching "
        "from a quit line (1-800-QUIT-NOW) all raise your chances.",
    ),
    (
        r"drink|alcohol",
        "Cutting back works best with a plan - a weekly limit, tracking your drinks and some "
        "alcohol-free days. If you drink heavily every day, please don't stop suddenly "
        "without medical advice, because withdrawal can be dangerous.",
    ),
    (
        r"fluid|water|salt",
        "How much fluid and salt is right depends on your condition - for some people more "
        "fluid is better, for others it needs a limit - so that's one to confirm with your "
        "doctor.",
    ),
    (
        r"\beat|diet|food|a1c|sugars|fodmap|gout|cranberr",
        "For most people small swaps add up: more vegetables, whole grains and lean protein, "
        "and fewer sugary drinks, processed foods and salt. A dietitian can tailor this to "
        "your condition.",
    ),
    (
        r"weight",
        "Slow, steady weight loss - about 1 to 2 pounds a week through changes you can keep "
        "up - tends to last best.",
    ),
    (
        r"exercis|running|walk|yoga|physical therapy|rehab|pelvic floor",
        "Regular activity helps most conditions - the usual goal is about 150 minutes a week "
        "of moderate activity, built up gradually. If you get chest pain, feel faint or are "
        "unusually short of breath while exercising, stop and get checked.",
    ),
    (
        r"sleep|at night",
        "Regular sleep and wake times, a cool dark room, and no screens or caffeine late in "
        "the day help most people.",
    ),
    (
        r"trigger",
        "Keeping a simple diary of what you ate, did and how you slept before each flare is "
        "the best way to find your own triggers.",
    ),
)
LIFESTYLE_GENERAL = "Small, steady changes you can keep up tend to help more than big ones."
DOSAGE_NOTES = (
    (
        r"\bcut\b|split|half|crush|chew|swallow",
        "Some tablets can be split safely and others can't - extended-release or coated "
        "tablets usually shouldn't be cut or crushed. Your pharmacist can tell you in a minute "
        "whether {med} can, and whether another form would be easier to swallow.",
    ),
    (
        r"food|empty stomach|meal|milk",
        "Some medicines work best with food and others on an empty stomach; the pharmacy label "
        "usually says which, and your pharmacist can confirm it for {med}.",
    ),
    (
        r"miss|forgot|skip",
        "If you miss a dose, don't double up unless your doctor has told you to; the leaflet "
        "that came with {med} explains what to do, and your pharmacist can confirm.",
    ),
    (
        r"time of day|morning|night|bedtime|what time",
        "For most medicines, taking it at the same time each day matters more than the exact "
        "time, but a few are best in the morning or at night - your pharmacist can tell you "
        "about {med}.",
    ),
    (
        r"alcohol|drink|wine|beer",
        "Alcohol can interact with some medicines or make side effects worse, so it's worth "
        "asking your pharmacist about {med}.",
    ),
)
DOSAGE_GENERAL = (
    "Please keep taking {med} exactly as prescribed until you've checked; your pharmacist or "
    "doctor can confirm the right way to take it."
)
# Answers to the follow-up questions patients ask after a first answer.
FOLLOW_UP_NOTES = (
    (
        r"stop (?:taking|it)|should i stop",
        "Please don't stop it on your own - stopping some medicines suddenly can cause "
        "problems. Your doctor can tell you whether to stop or switch.",
    ),
    (
        r"go away|get better|wear off",
        "It depends on the medicine and the person - some side effects fade after a few weeks, "
        "others last as long as you take it. Your doctor can tell you what to expect.",
    ),
    (
        r"miss(?:ed)? a dose|take two|double",
        "Please don't take two doses to make up for a missed one unless your doctor has told "
        "you to; your pharmacist can tell you what to do for your medicine.",
    ),
    (
        r"time of day|what time",
        "For most medicines, the same time every day matters more than the exact time; your "
        "pharmacist can tell you if yours is an exception.",
    ),
    (
        r"together or not|safe to take them together",
        "I can't confirm that from here - it depends on the exact medicines and doses, which "
        "is why your doctor or pharmacist should check the combination first.",
    ),
    (
        r"friend|can't i just|cant i just",
        "I understand. But a medicine that's fine for a friend can be unsafe with your record, "
        "so please don't take it without checking with your doctor first.",
    ),
    (
        r"safer one|something else|nothing i can take|instead\?",
        "There are usually other options, and your doctor can suggest one that's safe with "
        "your other medicines and conditions.",
    ),
    (
        r"how long does (?:that|it)(?: usually)? take",
        f"Your doctor usually replies {PCP_REPLY}.",
    ),
    (
        r"should i come in|need to come in|be seen",
        "It's worth being seen - not as an emergency, but soon if it isn't settling.",
    ),
    (
        r"worr|serious|dangerous",
        "I can't tell from here whether it's serious - that takes a clinician who can ask more "
        "questions and examine you.",
    ),
    (
        r"which one would you|what would you (?:go with|do|choose)",
        "I can't choose a treatment for you - that's a decision to make with your doctor, who "
        "knows your history.",
    ),
    (
        r"side effects",
        "Every option has its own possible side effects; your doctor or pharmacist can go "
        "through the ones that matter for you.",
    ),
    (
        r"how long before|notice a difference",
        "Most people notice changes within a few weeks of sticking with it, though it varies.",
    ),
    (
        r"insurance|cover|copay",
        "Coverage and copays depend on your plan - the member services number on your "
        "insurance card can tell you exactly.",
    ),
    (
        r"how often",
        "How often depends on your age, your results and your history - your doctor will set "
        "the schedule for you.",
    ),
    (
        r"ibuprofen|tylenol|acetaminophen|advil|aleve|naproxen|pain reliever",
        "Over-the-counter pain relievers are fine for many people but not for everyone - for "
        "example with kidney problems, stomach ulcers or blood thinners - so please check "
        "with your pharmacist first and stay within the label dose.",
    ),
    (
        r"pharmacy",
        "Many vaccines are available at pharmacies; your pharmacy can tell you which ones they "
        "give and whether your insurance covers them there.",
    ),
    (
        r"watch (?:out )?for|look out for",
        "Watch for anything that gets suddenly worse, or new symptoms like a high fever, "
        "trouble breathing or chest pain - those mean you shouldn't wait.",
    ),
    (
        r"are you sure|how do you know|from a doctor",
        "That's general guidance, not advice from your own doctor - which is why I'd suggest "
        "checking with your doctor directly.",
    ),
)


def note_for(text: str, notes: tuple[Any, ...], default: Any) -> Any:
    """The first note whose keywords the patient used, else `default`."""
    for note in notes:
        pattern = note.pattern if isinstance(note, Note) else note[0]
        if pattern and re.search(pattern, text, re.IGNORECASE):
            return note if isinstance(note, Note) else note[1]
    return default


def follow_up_note(turn: Turn) -> str:
    """A short answer to a follow-up question in the latest message, if it asks one."""
    if turn.user_turn < 2 or "?" not in turn.latest:
        return ""
    return str(note_for(turn.latest, FOLLOW_UP_NOTES, ""))
