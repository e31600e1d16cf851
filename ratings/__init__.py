"""What a score means, as plain data: the rubric (`rubric`) with its scale and pass mark
(`Rubric.scale`; `scale` holds the default rubric's), and why an agreement figure on those scores is undefined (`alpha`).

The floor under `jury` and `annotation`: both score on this rubric and read this scale, so a
rubric version with another pass mark moves the jury's pages and the clinicians' dashboards
together. Pure Python: no Django, no database, and nothing of the project above it (the
pipeline never needs it; tests/test_layers.py keeps it so).
"""
