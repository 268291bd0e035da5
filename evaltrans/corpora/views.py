"""Corpus pages: thin views over selectors (reads) and services (writes)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect


def home(request: HttpRequest) -> HttpResponse:
    return redirect("corpora:test_set_list")
