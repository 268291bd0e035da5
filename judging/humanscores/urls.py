"""URLs of the human-score pages, under /human/."""

from django.urls import path

from . import views

app_name = "humanscores"

urlpatterns = [
    path("", views.source_list, name="index"),
    path("import/", views.judgment_set_import, name="import"),
    path("<str:kind>/<int:pk>/", views.ranking, name="ranking"),
    path("<str:kind>/<int:pk>/judges/", views.judge_bias, name="judge_bias"),
    path("<str:kind>/<int:pk>/judges/judgments/", views.judge_detail, name="judge_detail"),
    path("<str:kind>/<int:pk>/agreement/", views.agreement, name="agreement"),
]
