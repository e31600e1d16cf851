"""The jury's pages, under /jury/ (researchers and admins only)."""

from django.urls import path

from jury import views

urlpatterns = [
    path("", views.jury_home, name="jury_home"),
    path("panels/new/", views.panel_new, name="jury_panel_new"),
    path("panels/<int:pk>/", views.panel_detail, name="jury_panel"),
    path("panels/<int:pk>/approve/", views.panel_approve, name="jury_panel_approve"),
    path("panels/<int:pk>/consistency/", views.consistency, name="jury_consistency"),
    path("judges/new/", views.judge_edit, name="jury_judge_new"),
    path("judges/<int:pk>/", views.judge_edit, name="jury_judge_edit"),
    path("runs/<int:run_pk>/launch/", views.launch, name="jury_launch"),
    path(
        "runs/<int:run_pk>/panels/<int:panel_pk>/verdicts/",
        views.verdict_list,
        name="jury_verdicts",
    ),
    path(
        "runs/<int:run_pk>/panels/<int:panel_pk>/verdicts/<int:trace_pk>/",
        views.verdict_detail,
        name="jury_conversation",
    ),
    path(
        "runs/<int:run_pk>/panels/<int:panel_pk>/leaderboard/",
        views.leaderboard,
        name="jury_leaderboard",
    ),
    path("scoring/<int:pk>/", views.jury_run_detail, name="jury_run"),
    path("scoring/<int:pk>/cancel/", views.jury_run_cancel, name="jury_run_cancel"),
    path("scoring/<int:pk>/resume/", views.jury_run_resume, name="jury_run_resume"),
]
