"""Pages load their code locally: plotly.js comes from the installed plotly package."""

from __future__ import annotations

import re
from pathlib import Path

import plotly
from django.contrib.staticfiles import finders

PROJECT_DIR = Path(__file__).resolve().parent.parent
CDN = re.compile(r"https?://(cdn\.|unpkg|cdnjs|jsdelivr|code\.jquery|ajax\.googleapis)")


def test_plotly_js_is_served_from_the_plotly_package():
    found = finders.find("vendor/plotly/plotly.min.js")
    assert found is not None
    assert Path(found).resolve().is_relative_to(Path(plotly.__file__).resolve().parent)


def test_no_template_or_script_loads_code_from_a_cdn():
    files = [*PROJECT_DIR.glob("templates/**/*.html"), *PROJECT_DIR.glob("static/**/*.js")]
    files += list(PROJECT_DIR.glob("*/templates/**/*.html"))
    assert files
    offenders = [str(f) for f in files if CDN.search(f.read_text(encoding="utf-8"))]
    assert offenders == []
