from django.contrib import admin
from django.urls import include, path

from config import accounts
from patientagentbench.views import case_sets, home, imports, models, reports, runs

urlpatterns = [
    path("", home.home, name="home"),
    # Before Django's own: the same names, with the guards of config.accounts.
    path(
        "accounts/password_reset/",
        accounts.PasswordResetView.as_view(),
        name="password_reset",
    ),
    path(
        "accounts/reset/<uidb64>/<token>/",
        accounts.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path("accounts/", include("django.contrib.auth.urls")),
    path("models/", models.model_list, name="model_list"),
    path("models/new/", models.model_edit, name="model_create"),
    path("models/<int:pk>/", models.model_edit, name="model_edit"),
    path("models/<int:pk>/toggle/", models.model_toggle, name="model_toggle"),
    path("runs/", runs.run_list, name="run_list"),
    path("runs/new/", runs.run_launch, name="run_launch"),
    path("runs/new/preview/", runs.run_preview, name="run_preview"),
    path("runs/import/", imports.import_upload, name="import_upload"),
    path("runs/import/<int:pk>/", imports.import_status, name="import_status"),
    path("runs/import/<int:pk>/confirm/", imports.import_confirm, name="import_confirm"),
    path("runs/<int:pk>/", runs.run_detail, name="run_detail"),
    path("runs/<int:pk>/cancel/", runs.run_cancel, name="run_cancel"),
    path("runs/<int:pk>/resume/", runs.run_resume, name="run_resume"),
    path("runs/<int:pk>/reference/", runs.run_set_reference, name="run_set_reference"),
    path("runs/<int:pk>/report/", reports.run_report, name="run_report"),
    path(
        "runs/<int:pk>/report/tables/<slug:name>.csv",
        reports.report_table_csv,
        name="report_table_csv",
    ),
    path(
        "runs/<int:pk>/report/figures/<slug:name>.html",
        reports.report_figure_html,
        name="report_figure_html",
    ),
    path(
        "runs/<int:pk>/report/statistics.json",
        reports.report_statistics_json,
        name="report_statistics_json",
    ),
    path("traces/<int:pk>/", runs.trace_detail, name="trace_detail"),
    path("case-sets/", case_sets.case_set_list, name="case_set_list"),
    path("case-sets/<int:pk>/", case_sets.case_set_detail, name="case_set_detail"),
    path("case-sets/<int:pk>/cases/<int:task_pk>/", case_sets.case_detail, name="case_detail"),
    path("review/", include("annotation.urls_review")),
    path("research/", include("annotation.urls_research")),
    path("jury/", include("jury.urls")),
    path("healthz", home.healthz, name="healthz"),
    path("favicon.ico", home.favicon, name="favicon"),
    path("django-admin/", admin.site.urls),
]
