from django.urls import path

from metrics.views import downloads, runs

app_name = "metrics"

urlpatterns = [
    path("", runs.run_list, name="run_list"),
    path("new/", runs.run_create, name="run_create"),
    path("<int:pk>/", runs.run_detail, name="run_detail"),
    path("<int:pk>/progress.json", runs.run_progress, name="run_progress"),
    path("<int:pk>/cancel/", runs.run_cancel, name="run_cancel"),
    path("<int:pk>/sentences/", runs.run_sentences, name="run_sentences"),
    path("<int:pk>/download/<str:file_format>/", downloads.run_download, name="run_download"),
]
