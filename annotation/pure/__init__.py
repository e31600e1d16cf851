"""The review app's pure modules: choosing and assigning items (sampling, assignment), draft
merging (drafts), calibration and agreement statistics (calibration, agreement, envelope,
planning, quality_stats, corrected) and audit wording. Plain data in and out, no Django:
tests/test_layers.py finds every `pure` package and holds it to that."""
