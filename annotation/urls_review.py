"""Clinician URLs (under /review/). Every view here is blinded: see annotation/reviewing.py."""

urlpatterns: list = []
