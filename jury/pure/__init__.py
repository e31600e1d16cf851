"""The jury's pure modules: what a judge reads (prompts), how an answer is read (parsing,
applicability), the simulated judge, and the statistics over verdicts (aggregate,
consistency, validity) and over which conversations to score (subsets). Plain data in and
out, no Django: tests/test_layers.py finds every `pure` package and holds it to that."""
