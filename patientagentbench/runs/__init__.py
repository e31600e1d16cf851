"""Runs as background jobs: launching (`launch`), executing one trace (`execution`), worker
heartbeats (`workers`), provider concurrency limits (`limits`), cost previews (`estimates`)
and the sandbox each suite plays in (`worlds`).

A job is one Trace row with a unique key. Workers claim it with a conditional UPDATE
(queued → running), so a job delivered twice, or re-sent by a resume, runs once.
"""
