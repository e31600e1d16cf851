"""The HTTP layer of review: `review` (what clinicians reach, blinded) and `research` (what
researchers use to build studies, rounds, adjudicate and manage people)."""
