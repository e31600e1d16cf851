"""A conversation as a reader sees it: turns and tool cards, built from an allow-list of
message fields. Review and jury code see conversations only through this package.

It takes a stored message log, never a trace row, and copies only the fields it names, so no
model, provider, run, temperature, token, cost or provider-issued id can travel with it.
"""

from patientagentbench.transcripts.build import (
    LONG_TEXT,
    ToolCard,
    Transcript,
    Turn,
    pretty,
    transcript_of,
)

__all__ = ["LONG_TEXT", "ToolCard", "Transcript", "Turn", "pretty", "transcript_of"]
