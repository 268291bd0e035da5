from django.urls import path

from . import views

app_name = "metrics"

urlpatterns = [
    path("", views.run_list, name="run_list"),
    path("new/", views.run_create, name="run_create"),
    path("<int:pk>/", views.run_detail, name="run_detail"),
    path("<int:pk>/progress.json", views.run_progress, name="run_progress"),
    path("<int:pk>/cancel/", views.run_cancel, name="run_cancel"),
    path("<int:pk>/sentences/", views.run_sentences, name="run_sentences"),
    path("<int:pk>/download/<str:file_format>/", views.run_download, name="run_download"),
]
