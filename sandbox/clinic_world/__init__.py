"""The healthcare clinic world (DESIGN §3): generation from a case, tool schemas and tools.

`sandbox.clinic.ClinicWorld` is the entry point; the modules here hold its parts:
`generation` (the initial state from a case's seed), `schemas` (the fifteen tools as an LLM
sees them), and the tools by area: `scheduling`, `care` (medications, messages, the call
queue) and `records` (profile, PCP, pharmacy, insurance, contact details).
"""
