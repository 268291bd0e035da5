from django.apps import AppConfig


class CorporaConfig(AppConfig):
    name = "evaltrans.corpora"
    label = "corpora"
    verbose_name = "Corpora"
