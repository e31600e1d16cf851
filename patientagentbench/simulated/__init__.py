"""Offline, seeded stand-ins for the agent, the patient and the judge (DESIGN §3)."""
