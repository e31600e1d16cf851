"""Reference plans for the office-19 suite's tasks.

Each plan, followed without perturbation, meets its task's correctness criteria (required
tools, argument patterns, output pattern, minimum counts). Steps that depend on earlier
results read them from the tool messages; when a result is missing (the agent dropped the
lookup, or the call failed) they fall back to what a model would guess, which may be wrong,
as a real model's guess may be.
"""

from __future__ import annotations

import re
from typing import Any

from .plans import Expander, Observations, Step, TaskPlan, objects_in

WORKDAY_START = 9 * 60
WORKDAY_END = 17 * 60
# The suite's calendar starts on 2026-03-01; the agent takes that as "today".
TODAY = "2026-03-01"
TOMORROW = "2026-03-02"
WEEK = ("2026-03-01", "2026-03-05")
CATEGORIES = ("electronics", "furniture", "office_supplies")


# --- Reading the office sandbox's results ---------------------------------------------------


def contacts(obs: Observations) -> list[dict[str, Any]]:
    return obs.records("get_contact", "email") + obs.records("search_contacts", "email")


def email_of(obs: Observations, first_name: str) -> str:
    for contact in contacts(obs):
        if _first_name(contact).lower() == first_name.lower():
            return str(contact["email"])
    return f"{first_name.lower()}@company.com"  # an unverified guess


def _first_name(contact: dict[str, Any]) -> str:
    name = str(contact.get("name", "")).strip()
    return name.split()[0] if name else str(contact.get("email", "")).split("@")[0]


def events(obs: Observations, day: str | None = None) -> list[dict[str, Any]]:
    found = obs.records("list_calendar_events", "title", "date")
    found = [e for e in found if _event_minutes(e) is not None]
    return [e for e in found if day is None or e["date"] == day]


def _event_minutes(event: dict[str, Any]) -> tuple[int, int] | None:
    start = event.get("start", event.get("start_time"))
    end = event.get("end", event.get("end_time"))
    if not (isinstance(start, str) and isinstance(end, str)):
        return None
    try:
        return minutes(start), minutes(end)
    except ValueError:
        return None


def minutes(hhmm: str) -> int:
    hours, mins = hhmm.split(":")[:2]
    return int(hours) * 60 + int(mins)


def clock(total_minutes: int) -> str:
    return f"{total_minutes // 60:02d}:{total_minutes % 60:02d}"


def first_free_slot(day_events: list[dict[str, Any]], length: int) -> int | None:
    busy = sorted(m for m in map(_event_minutes, day_events) if m)
    start = WORKDAY_START
    for busy_start, busy_end in busy:
        if busy_start - start >= length:
            return start
        start = max(start, busy_end)
    return start if WORKDAY_END - start >= length else None


def busy_minutes(day_events: list[dict[str, Any]]) -> int:
    spans = [m for m in map(_event_minutes, day_events) if m]
    return sum(max(0, min(end, WORKDAY_END) - max(start, WORKDAY_START)) for start, end in spans)


def describe_events(day_events: list[dict[str, Any]]) -> str:
    if not day_events:
        return "no events found"
    ordered = sorted(day_events, key=lambda e: (e["date"], _event_minutes(e) or (0, 0)))
    return "; ".join(
        f"{e['title']} on {e['date']} {clock(_event_minutes(e)[0])}-{clock(_event_minutes(e)[1])}"
        for e in ordered
    )


def attendees(event: dict[str, Any]) -> list[str]:
    return [str(a) for a in event.get("attendees", []) if str(a)]


def products(obs: Observations, category: str | None = None) -> list[dict[str, Any]]:
    found = [
        p
        for p in obs.records("search_products", "price", "stock")
        if _is_number(p["price"]) and _is_number(p["stock"])
    ]
    return [p for p in found if category is None or p.get("category") == category]


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def stock_value_expression(items: list[dict[str, Any]], share: float = 1.0) -> str:
    terms = " + ".join(f"{p['price']} * {p['stock']}" for p in items)
    return f"({terms}) * {share:g}" if share != 1.0 else terms


def stock_value(items: list[dict[str, Any]], share: float = 1.0) -> float:
    return sum(p["price"] * p["stock"] for p in items) * share


def inbox(obs: Observations) -> list[dict[str, Any]]:
    return obs.records("search_emails", "subject", "body")


def dollar_amounts(text: str) -> list[float]:
    """$45K -> 45000; $167 -> 167; "$45K/mo" counts once, as written."""
    amounts = []
    for number, suffix in re.findall(r"\$(\d[\d,]*(?:\.\d+)?)\s*([KkMm]?)", text):
        scale = {"k": 1_000, "m": 1_000_000}.get(suffix.lower(), 1)
        amounts.append(float(number.replace(",", "")) * scale)
    return amounts


def money(value: float) -> str:
    return f"${value:,.2f}"


def last_number(obs: Observations, tool: str = "calculate") -> float | None:
    values = obs.numbers(tool)
    return values[-1] if values else None


# --- retrieval ------------------------------------------------------------------------------


def email_alice_about_meeting(obs: Observations) -> list[Step]:
    return [
        Step(
            "send_email",
            {
                "to": email_of(obs, "alice"),
                "subject": "Meeting moved",
                "body": "Hi Alice, the meeting has been moved to 3pm tomorrow.",
            },
        )
    ]


def invite_startupxyz_contacts(obs: Observations) -> list[Step]:
    people = [c for c in obs.records("search_contacts", "email") if _works_at(c, "startupxyz")] or [
        {"name": "StartupXYZ team", "email": "team@startupxyz.com"}
    ]
    return [
        Step(
            "send_email",
            {
                "to": str(person["email"]),
                "subject": "Invitation: demo on March 10th",
                "body": f"Hi {_first_name(person)}, you are invited to a demo on March 10th "
                "at 2pm. Please let me know if you can attend.",
            },
        )
        for person in people
    ]


def _works_at(contact: dict[str, Any], company: str) -> bool:
    return company in str(contact.get("company", company)).lower()


def summarize_startupxyz_invites(obs: Observations) -> str:
    sent = [r.arguments.get("to") for r in obs.successful("send_email") if r.arguments]
    if not sent:
        return "I could not send the demo invitations."
    return f"Sent demo invitations for March 10th at 2pm to {', '.join(map(str, sent))}."


def summarize_budget(obs: Observations) -> str:
    found = [e for e in inbox(obs) if "budget" in (e["subject"] + e["body"]).lower()]
    if not found:
        return "I found no emails about the budget."
    lines = [f"'{e['subject']}' from {e.get('from', 'unknown')}: {e['body']}" for e in found]
    figures = [money(a) for e in found for a in dollar_amounts(e["body"])]
    return (
        "Budget emails found: "
        + " ".join(lines)
        + (f" Key financial figures: {', '.join(figures)}." if figures else "")
    )


def total_dollar_amounts(obs: Observations) -> list[Step]:
    amounts = [a for e in inbox(obs) for a in dollar_amounts(e["body"])]
    if not amounts:
        return []
    return [Step("calculate", {"expression": " + ".join(f"{a:g}" for a in amounts)})]


def summarize_dollar_total(obs: Observations) -> str:
    amounts = [a for e in inbox(obs) for a in dollar_amounts(e["body"])]
    total = last_number(obs)
    if total is None and amounts:
        total = sum(amounts)
    if total is None:
        return "I found no dollar amounts in the recent emails."
    return (
        f"I found {len(amounts)} dollar amounts across the recent emails; "
        f"their total is {money(total)}."
    )


# --- scheduling -----------------------------------------------------------------------------


def schedule_eve_in_free_hour(obs: Observations) -> list[Step]:
    start = first_free_slot(events(obs, "2026-03-03"), 60)
    start = WORKDAY_START if start is None else start
    return [
        Step(
            "create_calendar_event",
            {
                "title": "Meeting with Eve",
                "date": "2026-03-03",
                "start_time": clock(start),
                "end_time": clock(start + 60),
                "attendees": ["eve"],
            },
        )
    ]


def schedule_strategy_session(obs: Observations) -> list[Step]:
    week = [f"2026-03-0{day}" for day in range(1, 6)]
    day = min(week, key=lambda d: busy_minutes(events(obs, d)))
    start = first_free_slot(events(obs, day), 120)
    start = WORKDAY_START if start is None else start
    return [
        Step(
            "create_calendar_event",
            {
                "title": "Strategy Session",
                "date": day,
                "start_time": clock(start),
                "end_time": clock(start + 120),
                "attendees": ["eve", "frank"],
            },
        )
    ]


def summarize_created_event(obs: Observations) -> str:
    created = [r.arguments for r in obs.successful("create_calendar_event") if r.arguments]
    if not created:
        return "I could not create the calendar event."
    event = created[-1]
    with_whom = ", ".join(map(str, event.get("attendees", []))) or "no attendees"
    return (
        f"Scheduled '{event.get('title')}' on {event.get('date')} from "
        f"{event.get('start_time')} to {event.get('end_time')} with {with_whom}."
    )


def overlapping_pairs(day_events: list[dict[str, Any]]) -> list[tuple[dict, dict]]:
    ordered = sorted(day_events, key=lambda e: _event_minutes(e) or (0, 0))
    return [
        (a, b)
        for i, a in enumerate(ordered)
        for b in ordered[i + 1 :]
        if (_event_minutes(b) or (0, 0))[0] < (_event_minutes(a) or (0, 0))[1]
    ]


def _conflicted_attendees(obs: Observations) -> list[str]:
    names = {
        n
        for pair in overlapping_pairs(events(obs, "2026-03-03"))
        for e in pair
        for n in attendees(e)
    }
    return sorted(names)


def look_up_conflicted_attendees(obs: Observations) -> list[Step]:
    return [Step("search_contacts", {"query": name}) for name in _conflicted_attendees(obs)]


def notify_conflicted_attendees(obs: Observations) -> list[Step]:
    return [
        Step(
            "send_email",
            {
                "to": email_of(obs, name),
                "subject": "Scheduling conflict on March 3rd",
                "body": "Two of your events on March 3rd overlap; we will reschedule one.",
            },
        )
        for name in _conflicted_attendees(obs)
    ]


def summarize_conflicts(obs: Observations) -> str:
    day = events(obs, "2026-03-03")
    if not day:
        return "I could not read the calendar for March 3rd."
    pairs = overlapping_pairs(day)
    if not pairs:
        return f"No scheduling conflicts on March 3rd: {describe_events(day)} do not overlap."
    described = ", ".join(f"{a['title']} and {b['title']}" for a, b in pairs)
    return f"Conflicts on March 3rd: {described}; affected attendees were notified."


# --- computation ----------------------------------------------------------------------------


def calculate_electronics_value(obs: Observations) -> list[Step]:
    items = products(obs, "electronics") or products(obs)
    return [Step("calculate", {"expression": stock_value_expression(items)})] if items else []


def summarize_electronics_value(obs: Observations) -> str:
    items = products(obs, "electronics")
    total = last_number(obs)
    if total is None and items:
        total = stock_value(items)
    if total is None:
        return "I could not find the electronics products to value."
    return f"The total value of electronics in stock is {money(total)} ({len(items)} products)."


def calculate_half_stock_revenue(obs: Observations) -> list[Step]:
    cheap = [p for p in products(obs) if p["price"] < 50]
    if not cheap:
        return []
    return [Step("calculate", {"expression": stock_value_expression(cheap, share=0.5)})]


def summarize_half_stock_revenue(obs: Observations) -> str:
    cheap = [p for p in products(obs) if p["price"] < 50]
    total = last_number(obs)
    if total is None and cheap:
        total = stock_value(cheap, 0.5)
    if total is None:
        return "I could not find the products under $50."
    names = ", ".join(str(p.get("name")) for p in cheap)
    return f"Products under $50: {names}. Selling 50% of their stock would bring {money(total)}."


def calculate_category_value(category: str) -> Expander:
    def step(obs: Observations) -> list[Step]:
        items = products(obs, category)
        return [Step("calculate", {"expression": stock_value_expression(items)})] if items else []

    return step


def summarize_category_values(obs: Observations) -> str:
    values = {c: stock_value(products(obs, c)) for c in CATEGORIES if products(obs, c)}
    if not values:
        return "I could not find the product categories' inventory."
    best = max(values, key=values.__getitem__)
    listed = ", ".join(f"{c}: {money(v)}" for c, v in values.items())
    return f"Inventory value by category - {listed}. The highest is {best} ({money(values[best])})."


# --- composition ----------------------------------------------------------------------------


def schedule_acme_prep(obs: Observations) -> list[Step]:
    return [
        Step(
            "create_calendar_event",
            {
                "title": "Acme Demo Prep",
                "date": "2026-03-04",
                "start_time": "15:00",
                "end_time": "16:00",
                "attendees": ["dave"],
            },
        )
    ]


def cold_weather_email(obs: Observations) -> list[Step]:
    readings = _temperatures(obs)
    cold = {city: temp for city, temp in readings.items() if temp < 40}
    if readings and not cold:
        return []
    agenda = describe_events(events(obs, TODAY))
    warning = (
        ", ".join(f"{_city_label(c)} is {t:g}°F" for c, t in cold.items()) or "it may be below 40°F"
    )
    return [
        Step(
            "send_email",
            {
                "to": email_of(obs, "alice"),
                "subject": "Cold weather warning for your trip",
                "body": f"Hi Alice, heads up: {warning}, so pack warm clothes. "
                f"Scheduled on March 1st: {agenda}.",
            },
        )
    ]


def _temperatures(obs: Observations) -> dict[str, float]:
    readings = {}
    for result in obs.successful("get_weather"):
        city = str((result.arguments or {}).get("city", "unknown"))
        temps = [o["temp_f"] for o in objects_in(result.data()) if _is_number(o.get("temp_f"))]
        if temps:
            readings[city] = float(temps[0])
    return readings


def _city_label(city: str) -> str:
    return city.replace("_", " ").title()


def summarize_weather_warning(obs: Observations) -> str:
    readings = _temperatures(obs)
    weather = ", ".join(f"{_city_label(c)} {t:g}°F" for c, t in readings.items())
    emailed = bool(obs.successful("send_email"))
    return f"Weather: {weather or 'unavailable'}. " + (
        "I emailed Alice a cold-weather warning with the March 1st events."
        if emailed
        else "No warning email was sent."
    )


def campaign_metrics(obs: Observations) -> tuple[float, float] | None:
    for email in inbox(obs):
        signups = re.search(r"([\d,]+)\s+signups", email["body"])
        cpa = re.search(r"[Cc]ost per acquisition:?\s*\$([\d,.]+)", email["body"])
        if signups and cpa:
            return float(signups.group(1).replace(",", "")), float(cpa.group(1).replace(",", ""))
    return None


def calculate_marketing_spend(obs: Observations) -> list[Step]:
    metrics = campaign_metrics(obs)
    if metrics is None:
        return []
    return [Step("calculate", {"expression": f"{metrics[0]:g} * {metrics[1]:g}"})]


def marketing_note(obs: Observations) -> list[Step]:
    return [
        Step(
            "create_note",
            {"title": "Marketing Campaign Summary", "content": _marketing_findings(obs)},
        )
    ]


def _marketing_findings(obs: Observations) -> str:
    metrics = campaign_metrics(obs)
    if metrics is None:
        return "February campaign: metrics not found in the inbox."
    signups, cpa = metrics
    spend = last_number(obs) or signups * cpa
    return (
        f"February campaign: {signups:,.0f} signups at {money(cpa)} per acquisition; "
        f"total marketing spend {money(spend)}."
    )


def summarize_marketing(obs: Observations) -> str:
    noted = " Saved as a note." if obs.successful("create_note") else ""
    return _marketing_findings(obs) + noted


def _board_meeting(obs: Observations) -> dict[str, Any] | None:
    meetings = [e for e in events(obs) if "board" in str(e["title"]).lower()]
    return meetings[0] if meetings else None


def _board_attendees(obs: Observations) -> list[str]:
    meeting = _board_meeting(obs)
    return attendees(meeting) if meeting else ["eve"]  # the email came from Eve


def look_up_board_attendees(obs: Observations) -> list[Step]:
    return [Step("get_contact", {"name": name}) for name in _board_attendees(obs)]


def remind_board_attendees(obs: Observations) -> list[Step]:
    meeting = _board_meeting(obs)
    when = (
        f"{meeting['date']} {clock(_event_minutes(meeting)[0])}-{clock(_event_minutes(meeting)[1])}"
        if meeting
        else "March 3rd"
    )
    return [
        Step(
            "send_email",
            {
                "to": email_of(obs, name),
                "subject": "Reminder: Board Meeting",
                "body": f"Hi {name.title()}, a reminder that the board meeting is on {when}. "
                "The deck will include MRR, churn rate and pipeline.",
            },
        )
        for name in _board_attendees(obs)
    ]


def summarize_board_prep(obs: Observations) -> str:
    meeting = _board_meeting(obs)
    sent = [str((r.arguments or {}).get("to")) for r in obs.successful("send_email")]
    when = describe_events([meeting]) if meeting else "the board meeting (March 3rd)"
    return f"Found Eve's board deck email and {when}. Reminders sent to: {', '.join(sent) or 'nobody'}."


# --- ambiguous ------------------------------------------------------------------------------


def look_up_tomorrows_attendees(obs: Observations) -> list[Step]:
    names = sorted({n for e in events(obs, TOMORROW) for n in attendees(e)})
    return [Step("get_contact", {"name": name}) for name in names]


def summarize_tomorrow(obs: Observations) -> str:
    people = ", ".join(f"{c.get('name')} ({c.get('role', 'contact')})" for c in contacts(obs))
    return f"Tomorrow ({TOMORROW}): {describe_events(events(obs, TOMORROW))}." + (
        f" Attendees: {people}." if people else ""
    )


def summarize_week_followups(obs: Observations) -> str:
    subjects = ", ".join(f"'{e['subject']}'" for e in inbox(obs)) or "none found"
    return (
        f"This week's calendar: {describe_events(events(obs))}. Emails needing action: {subjects}."
    )


def _investor_call(obs: Observations) -> dict[str, Any] | None:
    calls = [e for e in events(obs) if "investor" in str(e["title"]).lower()]
    return calls[0] if calls else None


def look_up_investors(obs: Observations) -> list[Step]:
    call = _investor_call(obs)
    return [Step("search_contacts", {"query": name}) for name in (attendees(call) if call else [])]


def summarize_investor_prep(obs: Observations) -> str:
    call = _investor_call(obs)
    people = ", ".join(f"{c.get('name')} ({c.get('role', 'contact')})" for c in contacts(obs))
    metrics = " ".join(e["body"].rstrip(".") + "." for e in inbox(obs))
    return (
        f"Investor call: {describe_events([call]) if call else 'not found on the calendar'}. "
        f"Attendees: {people or 'unknown'}. Latest metrics: {metrics or 'none found.'}"
    )


# --- The plans ------------------------------------------------------------------------------


def _search(tool: str, query: str) -> Step:
    return Step(tool, {"query": query})


def _calendar(start: str, end: str) -> Step:
    return Step("list_calendar_events", {"start_date": start, "end_date": end})


OFFICE_PLANS: dict[str, TaskPlan] = {
    "retrieve-001": TaskPlan(
        [Step("get_contact", {"name": "alice"}), email_alice_about_meeting],
        lambda obs: (
            f"Sent Alice ({email_of(obs, 'alice')}) the message 'Meeting moved to 3pm tomorrow'."
        ),
    ),
    "retrieve-002": TaskPlan(
        [_search("search_contacts", "StartupXYZ"), invite_startupxyz_contacts],
        summarize_startupxyz_invites,
    ),
    "retrieve-003": TaskPlan([_search("search_emails", "budget")], summarize_budget),
    "retrieve-004": TaskPlan(
        [_search("search_emails", "$"), total_dollar_amounts], summarize_dollar_total
    ),
    "schedule-001": TaskPlan(
        [
            Step(
                "create_calendar_event",
                {
                    "title": "Design Review",
                    "date": "2026-03-02",
                    "start_time": "14:00",
                    "end_time": "14:30",
                    "attendees": ["bob"],
                },
            )
        ],
        summarize_created_event,
    ),
    "schedule-002": TaskPlan(
        [_calendar("2026-03-03", "2026-03-03"), schedule_eve_in_free_hour],
        summarize_created_event,
    ),
    "schedule-003": TaskPlan(
        [_calendar(*WEEK), schedule_strategy_session], summarize_created_event
    ),
    "schedule-004": TaskPlan(
        [
            _calendar("2026-03-03", "2026-03-03"),
            look_up_conflicted_attendees,
            notify_conflicted_attendees,
        ],
        summarize_conflicts,
    ),
    "compute-001": TaskPlan(
        [_search("search_products", "electronics"), calculate_electronics_value],
        summarize_electronics_value,
    ),
    "compute-002": TaskPlan(
        [*(_search("search_products", c) for c in CATEGORIES), calculate_half_stock_revenue],
        summarize_half_stock_revenue,
    ),
    "compute-003": TaskPlan(
        [
            entry
            for category in CATEGORIES
            for entry in (_search("search_products", category), calculate_category_value(category))
        ],
        summarize_category_values,
    ),
    "compose-001": TaskPlan(
        [
            _search("search_emails", "Acme Corp"),
            Step("get_contact", {"name": "dave"}),
            schedule_acme_prep,
        ],
        summarize_created_event,
    ),
    "compose-002": TaskPlan(
        [
            Step("get_weather", {"city": "san_francisco"}),
            Step("get_weather", {"city": "new_york"}),
            Step("get_contact", {"name": "alice"}),
            _calendar(TODAY, TODAY),
            cold_weather_email,
        ],
        summarize_weather_warning,
    ),
    "compose-003": TaskPlan(
        [_search("search_emails", "marketing campaign"), calculate_marketing_spend, marketing_note],
        summarize_marketing,
    ),
    "compose-004": TaskPlan(
        [
            _search("search_emails", "board deck"),
            _calendar("2026-03-03", "2026-03-03"),
            look_up_board_attendees,
            remind_board_attendees,
        ],
        summarize_board_prep,
    ),
    "ambig-001": TaskPlan(
        [_calendar(TOMORROW, TOMORROW), look_up_tomorrows_attendees], summarize_tomorrow
    ),
    "ambig-002": TaskPlan(
        [_calendar(*WEEK), _search("search_emails", "please")], summarize_week_followups
    ),
    "ambig-003": TaskPlan(
        [Step("list_calendar_events", {}), look_up_investors, _search("search_emails", "metrics")],
        summarize_investor_prep,
    ),
    "ambig-004": TaskPlan(
        [_calendar(*WEEK), _search("search_emails", "review")], summarize_week_followups
    ),
}
