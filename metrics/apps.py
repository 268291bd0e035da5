from django.apps import AppConfig


class MetricsConfig(AppConfig):
    name = "metrics"
    verbose_name = "Automatic measures"

    def ready(self) -> None:
        from django.conf import settings

        from metrics.core.edpm.cache import configure_parse_cache  # loads no spaCy

        # EDPM's parses live beside the database, so web and workers of one site share them.
        configure_parse_cache(settings.VAR_DIR / "parse-cache")
