"""Clinician URLs (under /review/). Every view here is blinded: see annotation/reviewing.py.
Items are addressed by their assignment's opaque code, studies and rounds by the study's."""

from django.urls import path

from annotation.views import review

urlpatterns = [
    path("", review.home, name="review_home"),
    path("next/", review.next_item, name="review_next"),
    path("welcome/", review.welcome, name="review_welcome"),
    path("round/<str:study_code>/", review.round_summary, name="review_round"),
    path("<str:code>/", review.item, name="review_item"),
    path("<str:code>/draft/", review.draft, name="review_draft"),
    path("<str:code>/submit/", review.submit, name="review_submit"),
    path("<str:code>/revise/", review.revise, name="review_revise"),
    path("<str:code>/feedback/", review.feedback, name="review_feedback"),
]
