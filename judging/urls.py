"""URLs of the judging app: the judge's screens and the admins' campaign pages."""

from django.urls import path

from . import views

app_name = "judging"

urlpatterns = [
    path("", views.my_assignments, name="my_assignments"),
    path("assignments/<int:pk>/", views.judge_next, name="judge_next"),
    path("assignments/<int:pk>/screens/<int:screen>/", views.judge_screen, name="judge_screen"),
    path("assignments/<int:pk>/practice/", views.practice_start, name="practice"),
    path("assignments/<int:pk>/practice/skip/", views.practice_skip, name="practice_skip"),
    path(
        "assignments/<int:pk>/practice/<int:screen>/",
        views.practice_screen,
        name="practice_screen",
    ),
    path(
        "assignments/<int:pk>/practice/<int:screen>/feedback/",
        views.practice_feedback,
        name="practice_feedback",
    ),
    path("campaigns/", views.campaign_index, name="campaign_list"),
    path("campaigns/new/<int:test_set_pk>/", views.campaign_new, name="campaign_new"),
    path("campaigns/<int:pk>/", views.campaign_detail, name="campaign_detail"),
    path("campaigns/<int:pk>/spans/", views.campaign_spans, name="campaign_spans"),
    path(
        "campaigns/<int:pk>/export/<str:export_format>/",
        views.campaign_export,
        name="campaign_export",
    ),
]
