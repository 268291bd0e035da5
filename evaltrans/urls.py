"""URL configuration."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

urlpatterns = [
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("judging/", include("judging.urls")),
    path("human/", include("judging.humanscores.urls")),
    path("runs/", include("metrics.urls")),
    path("correlation/", include("metrics.urls_correlation")),
    path("segments/", include("metrics.urls_segments")),
    path("", include("evaltrans.corpora.urls")),
]

handler500 = "evaltrans.errors.server_error"
