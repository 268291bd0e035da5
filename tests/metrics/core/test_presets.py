"""Presets: every entry builds its measure; ``thesis`` covers every registered measure."""

from __future__ import annotations

import pytest

from metrics.core import METRICS
from metrics.core.presets import PRESETS
from metrics.core.registry import OPT_IN

ENTRIES = [(preset, measure) for preset, table in PRESETS.items() for measure in table]


@pytest.mark.parametrize(("preset", "measure"), ENTRIES)
def test_every_preset_entry_constructs_its_measure(preset, measure):
    built = METRICS[measure](**PRESETS[preset][measure])
    for key, value in PRESETS[preset][measure].items():
        assert built.option(key) == value


def test_thesis_preset_covers_every_measure():
    assert set(PRESETS["thesis"]) == set(METRICS) - OPT_IN


def test_thesis_settings_of_bleu_and_nist():
    assert PRESETS["thesis"]["bleu"]["smoothing"] == "bleu-s"
    assert PRESETS["thesis"]["bleu"]["pad-rule"] == "both"
    assert PRESETS["thesis"]["nist"]["pad-rule"] == "none"
    assert PRESETS["thesis"]["nist"]["ref-length-rule"] == "average"
