from django.apps import AppConfig


class JuryConfig(AppConfig):
    name = "jury"
    verbose_name = "LLM jury"
    default_auto_field = "django.db.models.BigAutoField"
