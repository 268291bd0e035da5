from django.urls import path

from . import views

app_name = "corpora"

urlpatterns = [
    path("", views.home, name="home"),
    path("test-sets/", views.test_set_list, name="test_set_list"),
    path("test-sets/import/", views.test_set_import, name="test_set_import"),
    path("test-sets/import/<int:pk>/", views.import_detail, name="import_detail"),
    path("test-sets/import/<int:pk>/progress.json", views.import_progress, name="import_progress"),
    path("test-sets/<int:pk>/", views.test_set_detail, name="test_set_detail"),
    path(
        "test-sets/<int:pk>/export/<str:export_format>/",
        views.test_set_export,
        name="test_set_export",
    ),
]
