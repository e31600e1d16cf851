from django.apps import AppConfig


class JuryConfig(AppConfig):
    name = "jury"
    verbose_name = "LLM jury"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the scoring task with Celery, so a worker that loads Django runs judge
        # jobs; the pipeline's settings never name the jury (it never imports it).
        from jury import scoring  # noqa: F401
        from patientagentbench import extensions

        # The run page offers scoring without the pipeline naming the jury.
        extensions.add_run_action("Score with the jury", "jury_launch")
