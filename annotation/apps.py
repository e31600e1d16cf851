from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Clinician review"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Clinicians land on their review home; the pipeline's home page names no review URL.
        from patientagentbench import extensions
        from patientagentbench.roles import ADJUDICATOR, CLINICIAN

        extensions.set_landing(CLINICIAN, "review_home")
        extensions.set_landing(ADJUDICATOR, "research_adjudicator_home")
        # The run page's reference-trace monitor offers its deviating conversations for review.
        extensions.add_deviation_action(
            "Send deviating conversations to review", "research_deviations_review"
        )

        # A study's items can be scored by the jury; jury names no part of this app.
        from annotation.jury_sets import STUDY_ITEMS
        from jury.pure.subsets import add_conversation_set

        add_conversation_set(STUDY_ITEMS)
