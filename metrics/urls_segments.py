"""URLs of the segment page, its grid view and the two-system comparison, under /segments/."""

from django.urls import path

from metrics.views import compare, segments

app_name = "segments"

urlpatterns = [
    path("<int:test_set_pk>/<int:number>/", segments.segment_detail, name="detail"),
    path("<int:test_set_pk>/<int:number>/grid/", segments.segment_grid, name="grid"),
    path("<int:test_set>/compare/", compare.compare_systems, name="compare"),
]
