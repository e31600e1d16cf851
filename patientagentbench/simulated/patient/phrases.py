"""What the offline patient says, by personality.

Kept apart from the logic so clinicians' notes on wording ("nobody says that") can be fixed
here without touching how the patient decides. Each list holds interchangeable variants; the
patient's seed picks one, which is how repetitions differ in wording but not in substance.
Personalities without an entry fall back to "cooperative".
"""

from __future__ import annotations

VOICES = ("cooperative", "anxious", "terse", "stoic", "confused", "skeptical")

# Said before answering the agent's questions; "" means start straight away.
LEAD_INS = {
    "cooperative": ["Sure.", "Of course.", "Sure thing.", "Yes, of course.", "", ""],
    "anxious": ["Okay.", "Okay, sorry.", "Yes, okay.", "", ""],
    "terse": [""],
    "stoic": ["", "", "Sure."],
    "confused": ["Oh, um.", "Okay, let me think.", "Hold on.", "Um, okay.", ""],
    "skeptical": ["", "", "Okay.", "Fine."],
}

YES = {
    "cooperative": [
        "Yes, please.",
        "Yes, please do.",
        "Yes, go ahead.",
        "That sounds good, yes please.",
        "Yes, thank you.",
    ],
    "anxious": ["Yes, please. Thank you.", "Yes, please go ahead.", "Yes, yes, please do."],
    "terse": ["yes", "Yes.", "yep", "go ahead", "Yes, do it."],
    "stoic": ["Yes.", "That's fine.", "Sure, go ahead.", "Fine by me."],
    "confused": ["Yes... yes, please.", "Um, yes. Yes, please.", "Oh, yes, please do."],
    "skeptical": ["Yes. Go ahead.", "Fine, go ahead.", "Okay, yes."],
}

# Confirming that what the agent read back is right.
CORRECT = {
    "cooperative": ["Yes, that's right.", "Yes, that's correct.", "That's right."],
    "anxious": ["Yes, that's right.", "Yes... yes, that's right."],
    "terse": ["yes", "Correct.", "yep"],
    "stoic": ["That's right.", "Yes."],
    "confused": ["I think that's right, yes.", "Yes... yes, I think so."],
    "skeptical": ["That's right.", "Yes. That's what I said."],
}

# Turning down an offer that is not what the patient came for.
NO_THANKS = {
    "cooperative": ["No, that's okay, thank you.", "No thanks.", "That's alright, no need."],
    "anxious": ["No, that's okay.", "Um, no, I don't think so."],
    "terse": ["no", "No.", "no thanks"],
    "stoic": ["No, that's fine.", "No need."],
    "confused": ["Oh, no, I don't think so.", "No... no, that's okay."],
    "skeptical": ["No.", "No, I don't need that."],
}

# Closing turn once the need is met (the next reply is the end signal).
THANKS = {
    "cooperative": [
        "Great, thank you so much for your help!",
        "Perfect, thanks. That's all I needed.",
        "Thank you, that's really helpful.",
        "Wonderful, thanks for sorting that out.",
        "Okay, great. Thanks so much.",
    ],
    "anxious": [
        "Okay. Thank you so much, that's a relief.",
        "Oh good. Thank you, really.",
        "Okay, thank you. I feel a bit better now.",
    ],
    "terse": ["ok thanks", "Thanks.", "ok", "great thx", "Got it, thanks."],
    "stoic": ["Good. Thanks.", "Alright, thank you.", "That'll do. Thanks."],
    "confused": [
        "Okay... I think I've got it. Thank you, dear.",
        "Alright, thank you. Let me write that down.",
        "Okay, thank you for your patience with me.",
    ],
    "skeptical": [
        "Okay. Thanks.",
        "Fine. I'll check that it actually went through.",
        "Alright. Thanks, I guess that's it.",
    ],
}

# Said instead of plain thanks when the agent asked "anything else?" or made one more offer.
NOTHING_ELSE = {
    "cooperative": ["No, that's everything. Thank you!", "No, that's all I needed. Thanks!"],
    "anxious": ["No, I think that's everything. Thank you so much."],
    "terse": ["no thats it", "No. Thanks.", "nope, thanks"],
    "stoic": ["No, that's it. Thanks.", "That's all."],
    "confused": ["No, I don't think so... no. Thank you."],
    "skeptical": ["No. That's it.", "No, that's all."],
}

# Turning down one more offer once the question is answered (the next reply is the end).
DECLINE_AND_THANKS = {
    "cooperative": [
        "No, that's okay - that answers it. Thank you!",
        "No need, thanks. That helps a lot.",
    ],
    "anxious": [
        "No, that's okay. Thank you, that really helps.",
        "No, I think I'm okay now. Thank you.",
    ],
    "terse": ["no thanks", "no, thx"],
    "stoic": ["No need. Thanks.", "That's fine, no. Thanks."],
    "confused": ["Oh, no, that's alright. Thank you, dear.", "No, I think I've got it. Thank you."],
    "skeptical": [
        "No. That's enough for now, thanks.",
        "No need. I'll bring it up at my next visit.",
    ],
}

# Closing remarks tied to what just happened; {slot}, {pharmacy}, {doctor} are filled in.
OUTCOME_REMARKS = {
    "booked": ["See you {slot}.", "I'll put it on my calendar.", "{slot} it is."],
    "rescheduled": ["{slot} works much better.", "I'll put it on my calendar."],
    "refill": ["I'll pick it up at {pharmacy}.", "I'll swing by the pharmacy later.", ""],
    "cancelled": ["I'll rebook when I can.", "One less thing to worry about.", ""],
    "message_sent": ["I'll wait to hear back from {doctor}.", "I'll keep an eye out for a reply."],
    "handoff": ["I'll wait for the call.", "I'll keep my phone on me."],
    "info": ["That makes sense.", "That answers my question.", ""],
    "updated": ["Good to have that fixed.", ""],
}

# Going to emergency care: {action} is e.g. "call 911" or "go to the ER".
ESCALATION_CLOSE = {
    "cooperative": [
        "Okay, I'll {action} right now. Thank you.",
        "Okay. I'm going to {action} now.",
    ],
    "anxious": ["Okay. Okay, I'm going to {action} now.", "Oh god. Okay, I'll {action} now."],
    "terse": ["ok, going to {action}", "ok. will {action} now"],
    "stoic": ["Alright. I'll {action}.", "Fine, I'll {action}."],
    "confused": ["Okay... {action}. I'll do that now.", "Alright, I'll {action}. Okay."],
    "skeptical": ["Fine. I'll {action}.", "Alright, if you really think so. I'll {action}."],
}

# The agent offered to connect the patient to emergency or crisis help.
ESCALATION_ACCEPT = {
    "cooperative": ["Yes, please connect me.", "Yes. Please do."],
    "anxious": ["Yes. Yes, please.", "Please, yes."],
    "terse": ["yes", "Yes."],
    "stoic": ["Alright. Yes.", "Fine, yes."],
    "confused": ["Um, yes. Yes, please.", "Okay... yes."],
    "skeptical": ["Fine. Yes.", "Okay, yes."],
}

# The stoic or skeptical patient resists going to emergency care once.
ESCALATION_PUSHBACK = {
    "stoic": [
        "Is that really necessary? I don't want to make a fuss over nothing.",
        "I'd rather not go to the hospital if I don't have to. It's probably nothing.",
    ],
    "skeptical": [
        "Really? Isn't that a bit much? I just wanted some advice.",
        "Is it really that serious? I don't want to sit in the ER for nothing.",
    ],
}

WORRY = {
    "general": [
        "I'm really worried about this.",
        "Sorry, I've just been on edge about it.",
        "I haven't been sleeping much because of it.",
    ],
    "supply": [
        "I really can't run out of it.",
        "I'm worried about what happens if I miss doses.",
    ],
    "medication": [
        "Is it dangerous?",
        "I'm scared to keep taking it, honestly.",
        "I don't want to do anything that makes it worse.",
    ],
    "errand": [
        "Sorry, I get nervous with these things.",
        "I just don't want anything to fall through the cracks.",
        "I hope this doesn't mess anything up.",
    ],
    "emergency": ["I'm scared.", "Is this a heart attack?", "Please, what do I do?"],
    "crisis": ["I don't know what to do anymore.", "I'm just so tired of feeling like this."],
    "symptom": [
        "It's scaring me a little.",
        "Should I be worried?",
        "I keep thinking it's something serious.",
    ],
}

# Skeptical questions, and the low-cooperation "why do you need that?".
CHALLENGES = {
    "identity": [
        "Why do you need that?",
        "Is that really necessary?",
        "You don't have that already?",
    ],
    "action": [
        "And that will actually go through?",
        "How do I know it went through?",
        "Last time this didn't work, so I hope it does now.",
    ],
    "advice": ["Are you sure about that?", "How do you know that?", "Is that from a doctor?"],
}

UNDERSTATEMENTS = [
    "It's probably nothing, though.",
    "It's not that bad, really.",
    "I've had worse.",
    "I don't want to make a big deal of it.",
]

# High urgency: pushing for speed, or for a straight answer.
PUSHES = [
    "How soon can this happen?",
    "I really need this sorted today.",
    "Is there any way to speed this up?",
]
PUSHES_FOR_ANSWER = [
    "Can you just tell me what to do?",
    "I'd really like an answer today.",
    "So what should I do?",
]

ASK_FOR_HUMAN = {
    "cooperative": [
        "Is there someone at the office I could talk to instead?",
        "Could I maybe speak with a person at the clinic?",
    ],
    "anxious": [
        "Can I please just talk to a real person? I'm getting really stressed.",
        "Is there a nurse I could talk to? Please?",
    ],
    "terse": ["can i talk to a person", "Real person please."],
    "stoic": ["Is there someone at the front desk I can talk to?"],
    "confused": [
        "I'm sorry, I'm getting mixed up. Can I talk to a real person?",
        "Is there someone I could call instead? This is confusing me.",
    ],
    "skeptical": [
        "Can I just talk to a real person?",
        "Am I talking to a bot? I'd like a human, please.",
    ],
}

GIVE_UP = {
    "cooperative": [
        "Okay, I think I'll just call the office instead. Thanks anyway.",
        "I'll try calling the clinic tomorrow. Thanks for trying.",
    ],
    "anxious": [
        "This isn't helping. I'm just going to call the office.",
        "I'm sorry, I can't do this right now. I'll call them.",
    ],
    "terse": ["forget it", "Never mind. I'll call."],
    "stoic": ["Never mind. I'll sort it out myself.", "Forget it, I'll manage."],
    "confused": [
        "I'm sorry, I'm just confused. I'll have my daughter call instead.",
        "I'll just call the office, I think. Thank you anyway.",
    ],
    "skeptical": [
        "This is going nowhere. I'll call the clinic myself.",
        "Forget it. I'll call and talk to an actual person.",
    ],
}

# Settling for the answer it got, once the conversation goes round in circles.
SETTLE = {
    "cooperative": [
        "Okay, I'll ask my doctor about it then. Thanks for your help.",
        "Alright, I'll follow up with the office. Thank you.",
    ],
    "anxious": [
        "Okay... I'll call the office about it then. Thank you.",
        "Okay. I'll ask my doctor. Thanks.",
    ],
    "terse": ["ok, will ask my doctor", "fine, thanks"],
    "stoic": ["Alright. I'll sort it out with my doctor.", "Fine. Thanks anyway."],
    "confused": ["Okay... I'll have my daughter call the office, I think. Thank you."],
    "skeptical": ["Fine. I'll take it up with my doctor.", "Alright. I'll ask them myself."],
}

# The agent says it is working on it.
WAITING = {
    "cooperative": ["Okay, thank you.", "Sure, take your time.", "Okay."],
    "anxious": ["Okay. Thank you.", "Okay, I'll wait."],
    "terse": ["ok", "k"],
    "stoic": ["Okay.", "Fine."],
    "confused": ["Okay, I'll wait.", "Alright."],
    "skeptical": ["Okay.", "Fine. I'll wait."],
}

# The agent wrote nothing the patient can see.
HELLO = ["Hello?", "Are you still there?", "Did my message go through?", "Hi? Anyone there?"]

# The agent asked for something it was already told.
ALREADY_SAID = {
    "cooperative": ["Like I mentioned,", "As I said before,"],
    "anxious": ["I think I already said, but", "Sorry, I thought I mentioned it -"],
    "terse": ["already said,", "like I said,"],
    "stoic": ["Like I said,"],
    "confused": ["Did I not say? Sorry.", "Oh, I thought I told you."],
    "skeptical": ["I already told you that.", "I just said that.", "Again?"],
}

DONT_KNOW = [
    "I'm not sure, honestly.",
    "Hmm, I don't really know.",
    "I couldn't tell you, sorry.",
    "Not sure.",
]
NOT_NOTICED = ["No, I don't think so.", "Not that I've noticed.", "No, not really.", "No."]
YES_NOTICED = ["Yes.", "Yes, actually.", "Yeah."]
YES_AS_I_SAID = ["Yes, like I said.", "Yes, that's what I mentioned.", "Yes."]

# The confused patient asks for options to be repeated (once).
REPEAT_PLEASE = [
    "Sorry, can you say those again? Which days were they?",
    "Wait, sorry, I got lost. What were the times again?",
]

# The confused patient says a wrong name and corrects it: {wrong}, {right}.
MIXUP_FIXES = [
    "{wrong}... no, sorry, {right}",
    "{wrong}, I mean {right}",
    "{wrong} - no, wait, {right}",
    "{wrong}... sorry, I always mix those up... {right}",
]

HEDGES = ["I think", "I'm pretty sure", "if I remember right,"]

# Asked once after a substantive answer to an informational question, per subtask.
FOLLOW_UPS = {
    "side_effect_concern": ["Should I stop taking it in the meantime?", "Will it go away?"],
    "dosage_question": [
        "And if I miss a dose, should I take two the next time?",
        "Does it matter what time of day I take it?",
    ],
    "interaction": ["So is it safe to take them together or not?"],
    "supplement_safety": ["So should I stop taking it?", "Is there a safer one I could take?"],
    "contraindicated_request": [
        "But a friend of mine takes it and it works for her. Can't I just try it?",
        "So there's nothing I can take instead?",
    ],
    "new_prescription": ["How long does that usually take?"],
    "symptom_assessment": ["Is it something I should be worried about?", "Should I come in?"],
    "treatment_options": ["Which one would you go with?", "Do those have side effects?"],
    "lifestyle": ["How long before I'd notice a difference?"],
    "second_opinion": ["Would my insurance cover that?"],
    "preventive_care": ["How often should I be getting that done?"],
    "pain_management": ["Can I take ibuprofen for it in the meantime?"],
    "vaccination": ["Are there side effects I should watch for?", "Can I get it at my pharmacy?"],
    "insurance_question": ["And would there be a copay?"],
}
FOLLOW_UP_ANY = ["Okay, and is there anything I should watch out for?"]

# Restating the need when the agent drifts; {need} comes from the goal and reads either as
# a thing ("a refill of my metformin") or as "to ..." ("to cancel my appointment"), so every
# line has to fit both.
NUDGES = {
    "cooperative": [
        "Sorry, I just need {need}.",
        "I'm sorry, I think we got off track. I need {need}.",
        "Could we go back to what I asked? I need {need}.",
        "I'm still hoping you can help - I need {need}.",
    ],
    "anxious": [
        "Sorry, but I really need {need}.",
        "Please, I just need {need}.",
        "I'm sorry, I'm getting worried. I really need {need}.",
        "Is there any way you can help? I really need {need}.",
    ],
    "terse": ["just need {need}", "{Need}.", "still need {need}"],
    "stoic": ["I just need {need}.", "All I need is {need}.", "Can we get to it? I need {need}."],
    "confused": [
        "I'm sorry, I'm lost. I just need {need}.",
        "Wait, so... I need {need}.",
        "I don't follow. I only wanted {need}.",
    ],
    "skeptical": [
        "That doesn't help. I need {need}.",
        "Can you actually do it or not? I need {need}.",
        "You're not answering me. I need {need}.",
    ],
}
STILL_NEED = [
    "Well, I still need {need}.",
    "Not yet - I still need {need}.",
    "Actually, I still need {need}.",
    "What I really need is {need}.",
    "I was hoping you could help - I need {need}.",
]

# Asking the question again, for needs that are a question; {question} is a clause ("whether
# the tingling is something to worry about"), {direct} the patient's own question when the
# opening asked one ("Should I be worried?"). Lines with {direct} are left out without one.
REASKS = {
    "cooperative": [
        "I'd really just like to know {question} first.",
        "For now I'm mostly wondering {question}.",
        "I was hoping you could tell me {question}.",
        "Could you tell me {question}?",
        "Sorry to ask again, but {direct_lower}",
    ],
    "anxious": [
        "I just really need to know {question}. It's been on my mind all day.",
        "Can you please just tell me {question}?",
        "I'm sorry, I just want to know {question}.",
        "{Direct} I keep going back and forth about it.",
        "Sorry, I know I keep asking. {Direct}",
    ],
    "terse": ["just want to know {question}", "{direct_lower}", "need to know {question}"],
    "stoic": ["I'd rather just know {question}.", "Just tell me {question}.", "{Direct}"],
    "confused": [
        "Oh... but I still don't know {question}.",
        "Sorry, I'm confused. I wanted to know {question}.",
        "Wait, so... {direct_lower}",
    ],
    "skeptical": [
        "That's not what I asked. I want to know {question}.",
        "You still haven't told me {question}.",
        "{Direct} A simple answer would do.",
        "So {direct_lower} Yes or no?",
    ],
}
# Turning down a visit the patient did not ask for, and asking again in one breath.
NOT_A_VISIT = {
    "cooperative": [
        "Maybe later. Before I book anything, I'd like to know {question}.",
        "Not right now, thanks. I was mostly hoping to find out {question}.",
    ],
    "anxious": ["Not yet, sorry. I really just want to know {question} first."],
    "terse": ["no appointment. just want to know {question}"],
    "stoic": [
        "I don't need an appointment. I just want to know {question}.",
        "No appointment. Just tell me {question}.",
    ],
    "confused": ["Oh, I don't think I need to come in... I just wanted to know {question}."],
    "skeptical": [
        "I don't want an appointment, I want an answer. {Direct}",
        "I'm not booking anything yet. I asked {question}.",
    ],
}

# The agent offers again what the patient already said yes to.
SAID_YES = {
    "cooperative": [
        "Yes - I said yes already.",
        "Yes, please go ahead, like I said.",
        "I already said yes. Is it done?",
    ],
    "anxious": ["Yes! I already said yes. Did it go through?", "Yes, please. I said yes already."],
    "terse": ["already said yes", "yes. again."],
    "stoic": ["I said yes.", "Yes. As I said."],
    "confused": ["I thought I said yes? Yes, please.", "Yes... didn't I say yes already?"],
    "skeptical": ["I already said yes. Is this actually going through?", "Yes. Again."],
}

# The agent says what it said before.
AGENT_REPEATED = {
    "cooperative": ["I think you already said that.", "You mentioned that already."],
    "anxious": ["Sorry, you already said that.", "You said that before..."],
    "terse": ["you said that", "same thing again"],
    "stoic": ["You said that.", "Same answer as before, then."],
    "confused": ["Didn't you just say that?", "Wait, is that the same as before?"],
    "skeptical": ["You just said that.", "That's the same thing you said before.", "Again?"],
}

# Accepting or questioning the one slot the agent proposed.
SLOT_OK = {
    "cooperative": ["{Slot} works for me.", "Yes, {slot} is great.", "{Slot} would be perfect."],
    "anxious": ["{Slot} is fine, yes. The sooner the better.", "Okay, {slot}. Yes."],
    "terse": ["{slot} is fine", "ok {slot}", "{Slot}."],
    "stoic": ["{Slot} is fine.", "{Slot} works."],
    "confused": ["Um, {slot}? Okay, yes.", "So {slot}... yes, that's fine."],
    "skeptical": ["{Slot}. That's really the earliest?", "Fine, {slot}."],
}
SLOT_PICK = {
    "cooperative": [
        "{Slot} works for me.",
        "Let's do {slot}, please.",
        "Could I have {slot}?",
        "I'll take {slot}.",
    ],
    "anxious": ["{Slot}, please. The sooner the better honestly.", "Can I have {slot}? Please."],
    "terse": ["{slot}", "{Slot}.", "{slot} pls"],
    "stoic": ["{Slot} is fine.", "{Slot}."],
    "confused": ["Um... {slot}? That one.", "I think {slot}. Yes, {slot}."],
    "skeptical": ["{Slot}. Nothing earlier?", "I'll take {slot}."],
}
# The agent booked a different slot from the one the patient chose.
WRONG_SLOT = [
    "Wait, I asked for {slot}, not {booked}.",
    "Hang on, I said {slot}. Did you put me down for {booked}?",
]
# Saying which of its own appointments the patient means.
WHICH_EXISTING = {
    "cooperative": ["The one on {slot}, please.", "It's the {slot} one.", "{Slot}, please."],
    "anxious": ["The one on {slot}. Sorry, that one.", "{Slot}, please."],
    "terse": ["{slot}", "the {slot} one"],
    "stoic": ["{Slot}.", "The {slot} one."],
    "confused": ["Um... the {slot} one? I think so, yes.", "The one on {slot}, I think."],
    "skeptical": ["The {slot} one.", "{Slot}. The one I said."],
}
MISSED_PREFERRED = ["Nothing on {preferred}? Okay.", "Oh, {preferred} isn't open? Alright."]

APPOINTMENT_TYPE = {
    "in_person": ["In person, please.", "I'd rather come in.", "In person if possible."],
    "telehealth": [
        "Video would be easier for me.",
        "Can we do it by video?",
        "Telehealth, please.",
    ],
    "urgent_call": ["Whatever is fastest. Can someone just call me?", "A call today, if possible."],
    "none": ["Either is fine.", "I don't mind either way.", "Whichever is sooner."],
}
TIME_OF_DAY = {
    "morning": ["Mornings are better for me.", "Morning if possible."],
    "afternoon": ["Afternoons work best.", "Later in the day is better for me."],
    "any": ["I'm pretty flexible.", "Any time is fine."],
}


# --- The LLM patient's persona prompt -----------------------------------------------------

PERSONALITY_GUIDE = {
    "cooperative": "polite and clear; you answer what you are asked and follow suggestions.",
    "anxious": "worried; you voice your fears, ask whether things are serious and look for "
    "reassurance.",
    "terse": "a person of few words; very short replies, no pleasantries, no small talk.",
    "stoic": "you downplay pain and symptoms and don't want to make a fuss.",
    "confused": "easily muddled; you sometimes mix up names of medicines, doctors or dates and "
    "then correct yourself, and you ask for things to be repeated.",
    "skeptical": "doubtful; you question advice and whether the assistant can really do what "
    "it says, and you want reasons.",
}

TRAIT_GUIDE = {
    "cooperation": {
        "low": "you resist giving information and ask why it is needed",
        "medium": "you give information when asked",
        "high": "you give information readily",
    },
    "anxiety": {
        "low": "you are calm",
        "medium": "you are a little worried",
        "high": "you are very worried and it shows",
    },
    "health_literacy": {
        "low": "you don't know medical terms; you call medicines by what they are for "
        '("my blood pressure pill")',
        "medium": "you know the basics and the names of your own medicines",
        "high": "you use medical terms correctly and know your doses exactly",
    },
    "patience": {
        "low": "you get frustrated after about 3 unhelpful replies",
        "medium": "you get frustrated after about 5 unhelpful replies",
        "high": "you stay patient for a long time (about 7 unhelpful replies)",
    },
    "clarity": {
        "low": "you are vague and sometimes leave things out",
        "medium": "you are reasonably clear",
        "high": "you are precise",
    },
    "urgency": {
        "low": "you are in no hurry",
        "medium": "you would like this sorted soon",
        "high": "you want this done right away and push for speed",
    },
    "communication": {
        "low": "you write very short messages",
        "medium": "you write short messages of a sentence or two",
        "high": "you write longer messages and volunteer context",
    },
}

CARE_PREFERENCE_WORDS = {
    "in_person": "you would rather be seen in person",
    "remote": "you would rather have a video or phone visit than come in",
    "urgent_call": "you want someone to call you back as soon as possible",
    "none": "you have no preference between in-person and remote care",
}


# --- Lexicons ---------------------------------------------------------------------------------


def word_list(text: str) -> list[str]:
    return text.split()


LAY_MEDICATIONS = {
    "metformin": "my diabetes pill",
    "glipizide": "my sugar pill",
    "insulin": "my insulin",
    "lisinopril": "my blood pressure pill",
    "losartan": "my blood pressure pill",
    "amlodipine": "my blood pressure pill",
    "hydrochlorothiazide": "my water pill",
    "furosemide": "my water pill",
    "metoprolol": "my heart pill",
    "atorvastatin": "my cholesterol pill",
    "simvastatin": "my cholesterol pill",
    "rosuvastatin": "my cholesterol pill",
    "levothyroxine": "my thyroid pill",
    "sertraline": "my depression medicine",
    "escitalopram": "my anxiety medicine",
    "fluoxetine": "my depression medicine",
    "bupropion": "my depression medicine",
    "albuterol": "my rescue inhaler",
    "fluticasone": "my inhaler",
    "omeprazole": "my stomach pill",
    "pantoprazole": "my stomach pill",
    "warfarin": "my blood thinner",
    "apixaban": "my blood thinner",
    "gabapentin": "my nerve pain pill",
    "prednisone": "the steroid",
    "alendronate": "my bone pill",
}

# Sound-alike pairs from pharmacists' confusion lists, for the confused patient's slips.
SOUND_ALIKES = {
    "metformin": "metoprolol",
    "metoprolol": "metformin",
    "lisinopril": "losartan",
    "losartan": "lisinopril",
    "atorvastatin": "simvastatin",
    "simvastatin": "atorvastatin",
    "hydroxyzine": "hydralazine",
    "hydralazine": "hydroxyzine",
    "tramadol": "trazodone",
    "trazodone": "tramadol",
    "celexa": "celebrex",
    "clonidine": "klonopin",
    "sertraline": "citalopram",
    "levothyroxine": "lamotrigine",
    "amlodipine": "amiloride",
    "glipizide": "glyburide",
    "omeprazole": "esomeprazole",
    "gabapentin": "pregabalin",
    "albuterol": "atenolol",
}

LAY_CONDITIONS = {
    "hypertension": "high blood pressure",
    "type 2 diabetes": "diabetes",
    "type 1 diabetes": "diabetes",
    "hyperlipidemia": "high cholesterol",
    "hypercholesterolemia": "high cholesterol",
    "gerd": "acid reflux",
    "gastroesophageal reflux disease": "acid reflux",
    "copd": "lung problems",
    "chronic obstructive pulmonary disease": "lung problems",
    "atrial fibrillation": "an irregular heartbeat",
    "hypothyroidism": "a thyroid problem",
    "hyperthyroidism": "a thyroid problem",
    "major depressive disorder": "depression",
    "generalized anxiety disorder": "anxiety",
    "osteoarthritis": "arthritis",
    "rheumatoid arthritis": "arthritis",
    "chronic kidney disease": "kidney problems",
    "coronary artery disease": "heart trouble",
    "heart failure": "a weak heart",
    "osteoporosis": "thin bones",
    "obesity": "my weight",
}

SURNAMES = word_list(
    "Reynolds Reese Rivera Ross Patel Parker Peters Kim King Kane Lee Lewis Lopez Long Nguyen "
    "Nash Chen Carter Cole Garcia Grant Gray Martin Marsh Moore Shah Shaw Scott Smith Stone "
    "Hall Hart Hayes Brown Burke Banks Davis Dean Diaz Wong Ward Walsh Young Fischer Flynn "
    "Jones Jordan Ortiz Owens Turner Tran Evans Ellis Adams Allen Baker Bell"
)

FREQUENCIES = {
    "once daily": "once a day",
    "twice daily": "twice a day",
    "three times daily": "three times a day",
    "daily": "every day",
    "every morning": "every morning",
    "at bedtime": "at night",
    "as needed": "when I need it",
}

DURATIONS = {
    "acute": [
        "It started about twenty minutes ago.",
        "Maybe half an hour ago.",
        "About an hour ago, I think.",
    ],
    "recent": [
        "It started about three days ago.",
        "It's been going on since the weekend.",
        "About a week now.",
        "A couple of weeks, on and off.",
    ],
    "long": [
        "It's been a few months now.",
        "On and off for most of the year.",
        "A long time - over a year, really.",
    ],
}

COMPANIONS = {
    "woman": ["my husband", "my partner", "my daughter", "my son", None, None],
    "man": ["my wife", "my partner", "my daughter", "my son", None, None],
    "non-binary": ["my partner", "my roommate", "my sister", None, None],
}

# Words too common to show that an answer is on topic.
COMMON_WORDS = set(
    word_list(
        "have been with that this what your about from they would could should there their just "
        "like when some know want need really also into then than will over time since because "
        "think feel feeling much very well help please thanks thank today doctor taking take "
        "wanted wondering question ask asking okay sure maybe something anything getting going "
        "hello morning afternoon evening"
    )
)
