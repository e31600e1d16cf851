from django.contrib import admin
from django.urls import include, path

from patientagentbench import case_views, report_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("models/", views.model_list, name="model_list"),
    path("models/new/", views.model_edit, name="model_create"),
    path("models/<int:pk>/", views.model_edit, name="model_edit"),
    path("models/<int:pk>/toggle/", views.model_toggle, name="model_toggle"),
    path("runs/", views.run_list, name="run_list"),
    path("runs/new/", views.run_launch, name="run_launch"),
    path("runs/new/preview/", views.run_preview, name="run_preview"),
    path("runs/<int:pk>/", views.run_detail, name="run_detail"),
    path("runs/<int:pk>/cancel/", views.run_cancel, name="run_cancel"),
    path("runs/<int:pk>/resume/", views.run_resume, name="run_resume"),
    path("runs/<int:pk>/report/", report_views.run_report, name="run_report"),
    path(
        "runs/<int:pk>/report/tables/<slug:name>.csv",
        report_views.report_table_csv,
        name="report_table_csv",
    ),
    path(
        "runs/<int:pk>/report/figures/<slug:name>.html",
        report_views.report_figure_html,
        name="report_figure_html",
    ),
    path(
        "runs/<int:pk>/report/statistics.json",
        report_views.report_statistics_json,
        name="report_statistics_json",
    ),
    path("traces/<int:pk>/", views.trace_detail, name="trace_detail"),
    path("case-sets/", case_views.case_set_list, name="case_set_list"),
    path("case-sets/<int:pk>/", case_views.case_set_detail, name="case_set_detail"),
    path("case-sets/<int:pk>/cases/<int:task_pk>/", case_views.case_detail, name="case_detail"),
    path("healthz", views.healthz, name="healthz"),
    path("django-admin/", admin.site.urls),
]
