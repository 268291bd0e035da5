"""URLs of the correlation dashboards, under /correlation/."""

from django.urls import path

from metrics.views import correlation, external

app_name = "correlation"

urlpatterns = [
    path("", correlation.correlation_index, name="index"),
    path("import-scores/", external.import_scores, name="import_scores"),
    path("<str:kind>/<int:pk>/", correlation.correlation_matrix, name="matrix"),
    path(
        "<str:kind>/<int:pk>/matrix.<str:file_format>",
        correlation.correlation_matrix_download,
        name="matrix_download",
    ),
    path("<str:kind>/<int:pk>/state.json", correlation.correlation_state, name="state"),
    path("<str:kind>/<int:pk>/scatter/", correlation.correlation_scatter, name="scatter"),
    path("<str:kind>/<int:pk>/sweep/", correlation.correlation_sweep, name="sweep"),
    path(
        "<str:kind>/<int:pk>/combination/",
        correlation.correlation_combination,
        name="combination",
    ),
    path(
        "<str:kind>/<int:pk>/scatter.<str:file_format>",
        correlation.correlation_scatter_download,
        name="scatter_download",
    ),
]
