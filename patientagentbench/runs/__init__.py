"""Runs as background jobs: launching (`launch`), executing one trace (`execution`), claims
on jobs (`claims`), worker heartbeats and recovery of lost work (`workers`), queued jobs sent again after a broker
reconnect (`reconnect`), launch sizes and
provider concurrency limits (`limits`), cost previews (`estimates`) and the sandbox each suite
plays in (`worlds`).

A job is one Trace row with a unique key. Workers claim it with a conditional UPDATE
(queued → running, naming the worker process: `claims`), so a job delivered twice, or re-sent
by a resume, runs once. A claim whose worker stops beating is taken back by the workers still
alive (`workers`), and only the claim's holder may store the job's result.
"""
