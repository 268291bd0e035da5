"""Hypothesis profiles shared by the property-based tests: import this module before using
``@settings``. ``default`` keeps the suite quick; ``make fuzz`` sets HYPOTHESIS_PROFILE=fuzz
for many more examples."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("default", max_examples=40, deadline=None)
settings.register_profile("fuzz", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
