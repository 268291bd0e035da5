"""App configuration of the human-score pages and judgment sets."""

from django.apps import AppConfig


class HumanScoresConfig(AppConfig):
    name = "judging.humanscores"
    label = "humanscores"
    verbose_name = "Human scores"
    default_auto_field = "django.db.models.BigAutoField"
