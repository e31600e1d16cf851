from django.apps import AppConfig


class ProjectShellConfig(AppConfig):
    """The project shell: settings, URLs, the Celery app and the commands that wire every app
    together (the demo seeder, `serve`, backups). It may import every app; no app imports it."""

    name = "config"
    verbose_name = "Project shell"
