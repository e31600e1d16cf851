"""Researcher URLs (under /research/): people, studies, calibration rounds, adjudication, audit
and export. Every view requires the researcher or admin role, except the adjudication pages
(the queue, deciding, an item's conversation, the study page and audit trail it links to, and
the adjudicator's home), which an adjudicator may open too."""

from django.urls import path

from annotation.views import (
    research_adjudication as adjudication,
)
from annotation.views import (
    research_dashboards as dashboards,
)
from annotation.views import (
    research_judges as judges,
)
from annotation.views import (
    research_people as people,
)
from annotation.views import (
    research_rounds as rounds,
)
from annotation.views import (
    research_rubrics as rubrics,
)
from annotation.views import (
    research_studies as studies,
)

urlpatterns = [
    path("", studies.research_home, name="research_home"),
    path("people/", people.people, name="research_people"),
    path("people/<int:pk>/", people.person, name="research_person"),
    path(
        "people/<int:pk>/deactivate/", people.person_deactivate, name="research_person_deactivate"
    ),
    path(
        "people/<int:pk>/reactivate/", people.person_reactivate, name="research_person_reactivate"
    ),
    path("people/<int:pk>/link/", people.person_new_link, name="research_person_link"),
    path("start/", studies.first_study, name="research_first_study"),
    path("rubrics/", rubrics.rubrics, name="research_rubrics"),
    path("rubrics/<slug:name>/v<int:version>/", rubrics.rubric, name="research_rubric"),
    path("studies/", studies.study_list, name="research_studies"),
    path("studies/new/", studies.study_new, name="research_study_new"),
    path(
        "runs/<int:pk>/deviations/review/",
        studies.deviations_review,
        name="research_deviations_review",
    ),
    path("studies/preview/", studies.study_preview, name="research_study_preview"),
    path("studies/<int:pk>/", studies.study_detail, name="research_study"),
    path("studies/<int:pk>/status/", studies.study_status, name="research_study_status"),
    path("studies/<int:pk>/export.csv", studies.study_export, name="research_study_export"),
    path("studies/<int:pk>/report/", rounds.round_report, name="research_round_report"),
    path("studies/<int:pk>/references/", rounds.references, name="research_references"),
    path(
        "studies/<int:pk>/adjudication/",
        adjudication.adjudication_queue,
        name="research_adjudication",
    ),
    path(
        "studies/<int:pk>/adjudication/<int:item_pk>/<slug:dimension>/",
        adjudication.adjudicate,
        name="research_adjudicate",
    ),
    path("adjudication/", adjudication.adjudicator_home, name="research_adjudicator_home"),
    path("rounds/new/", rounds.round_new, name="research_round_new"),
    path("rounds/<int:pk>/judges/", judges.round_judges, name="research_round_judges"),
    path(
        "rounds/<int:pk>/judges/<int:panel_pk>/score/",
        judges.round_judges_score,
        name="research_round_judges_score",
    ),
    path(
        "rounds/<int:pk>/judges/<int:panel_pk>/record/",
        judges.round_judges_record,
        name="research_round_judges_record",
    ),
    path(
        "qualifications/<int:pk>/reopen/",
        rounds.qualification_reopen,
        name="research_qualification_reopen",
    ),
    path("items/<int:pk>/audit/", studies.item_audit, name="research_item_audit"),
    path("items/<int:pk>/reference/", rounds.item_reference, name="research_item_reference"),
    path(
        "items/<int:pk>/conversation/",
        adjudication.item_conversation,
        name="research_item_conversation",
    ),
    path("studies/<int:pk>/bundle.zip", dashboards.study_bundle, name="research_study_bundle"),
    path("dashboards/", dashboards.dashboards_home, name="research_dashboards"),
    path("dashboards/jury/", dashboards.jury, name="research_dashboard_jury"),
    path("dashboards/raters/", dashboards.raters, name="research_dashboard_raters"),
    path("dashboards/quality/", dashboards.quality, name="research_dashboard_quality"),
    path("dashboards/planner/", dashboards.planner, name="research_dashboard_planner"),
    path("dashboards/corrected/", dashboards.corrected, name="research_dashboard_corrected"),
    path(
        "dashboards/<slug:page>/tables/<slug:name>.csv",
        dashboards.table_csv,
        name="research_dashboard_table",
    ),
    path(
        "dashboards/<slug:page>/figures/<slug:name>.html",
        dashboards.figure_html,
        name="research_dashboard_figure",
    ),
]
