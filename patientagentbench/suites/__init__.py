"""Suites in the database: task suites installed from fixtures (`install`), frozen case sets
of patient scenarios generated in the background (`case_sets`), and playing a case offline to
check that it can be completed (`playing`)."""
