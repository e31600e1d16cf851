from django.apps import AppConfig


class JuryConfig(AppConfig):
    name = "jury"
    verbose_name = "LLM jury"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the scoring task with Celery, so a worker that loads Django runs judge
        # jobs; the pipeline's settings never name the jury (it never imports it).
        from jury import scoring  # noqa: F401
        from jury.rubrics import STORE
        from patientagentbench import extensions
        from ratings.rubric import add_rubric_source

        # Researchers' own rubrics, stored in the database, beside the built-in files.
        add_rubric_source(STORE)

        # The run page offers scoring without the pipeline naming the jury.
        extensions.add_run_action("Score with the jury", "jury_launch")
