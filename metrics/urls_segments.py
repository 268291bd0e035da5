"""URLs of the segment page and its grid view, under /segments/."""

from django.urls import path

from metrics.views import segments

app_name = "segments"

urlpatterns = [
    path("<int:test_set_pk>/<int:number>/", segments.segment_detail, name="detail"),
    path("<int:test_set_pk>/<int:number>/grid/", segments.segment_grid, name="grid"),
]
