from django.urls import path

from . import views

app_name = "corpora"

urlpatterns = [
    path("", views.home, name="home"),
]
