"""The "start a run" form: systems, a preset or measures with their options (validation only).

Option fields are built from each measure's ``Option`` declarations (``metrics.core``), named
``opt__<measure>__<option>``. With a preset chosen, the preset's values are used and the
option fields are ignored (the page's script fills and locks them so the user sees what runs).
"""

from __future__ import annotations

from typing import Any

from django import forms

from evaltrans.corpora.models import TestSet
from metrics.core import METRICS
from metrics.core.base import Option
from metrics.core.presets import PRESETS
from metrics.measure_choices import (
    NO_MEASURES,
    RunError,
    measure_build,
    measure_choices_resolve,
)

PRESET_LABELS = {
    "thesis": "Thesis defaults (each measure at the settings the thesis found best)",
    "wmt": "WMT standard (sacreBLEU's BLEU, chrF and TER defaults)",
    "default": "Every measure at its own defaults",
}


def option_field_name(measure: str, key: str) -> str:
    return f"opt__{measure}__{key}"


def _option_field(option: Option) -> forms.Field:
    common: dict[str, Any] = {"help_text": option.help, "initial": option.default}
    if option.kind is bool:
        return forms.BooleanField(required=False, **common)
    if option.choices is not None:
        return forms.ChoiceField(choices=[(c, c) for c in option.choices], **common)
    if option.kind is int:
        return forms.IntegerField(min_value=option.minimum, max_value=option.maximum, **common)
    if option.kind is float:
        return forms.FloatField(min_value=option.minimum, max_value=option.maximum, **common)
    return forms.CharField(max_length=200, **common)


class RunForm(forms.Form):
    systems = forms.ModelMultipleChoiceField(
        queryset=None, widget=forms.CheckboxSelectMultiple, required=True
    )
    preset = forms.ChoiceField(required=False)
    measures = forms.MultipleChoiceField(
        choices=(), widget=forms.CheckboxSelectMultiple, required=False
    )
    comment = forms.CharField(required=False, max_length=1000, widget=forms.TextInput)

    def __init__(self, *args: Any, test_set: TestSet, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.test_set = test_set
        systems = test_set.systems.order_by("name")
        self.fields["systems"].queryset = systems
        self.fields["systems"].initial = list(systems)
        self.fields["preset"].choices = [("", "Custom: the options below")] + [
            (name, PRESET_LABELS.get(name, name)) for name in PRESETS if name != "default"
        ]
        self.fields["measures"].choices = [(name, name) for name in METRICS]
        for name, measure in METRICS.items():
            for key, option in measure.options.items():
                self.fields[option_field_name(name, key)] = _option_field(option)
                self.fields[option_field_name(name, key)].required = False

    def measure_groups(self) -> list[dict[str, Any]]:
        """For the template: each measure with its description and option fields."""
        return [
            {
                "name": name,
                "description": measure.description,
                "higher_is_better": measure.higher_is_better,
                "fields": [(key, self[option_field_name(name, key)]) for key in measure.options],
            }
            for name, measure in METRICS.items()
        ]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        preset = cleaned.get("preset") or ""
        names = list(cleaned.get("measures") or [])
        if not names and not preset:
            raise forms.ValidationError(NO_MEASURES)
        options: dict[str, dict[str, Any]] = {}
        if not preset:
            for name in names:
                options[name] = {
                    key: cleaned[option_field_name(name, key)]
                    for key, option in METRICS[name].options.items()
                    if cleaned.get(option_field_name(name, key)) not in (None, "")
                    or option.kind is bool
                }
        try:
            choices = measure_choices_resolve(names=names, preset=preset, options=options)
            for choice in choices:
                measure_build(name=choice.name, options=choice.options)
        except RunError as error:
            raise forms.ValidationError(str(error)) from None
        if not choices:
            raise forms.ValidationError(NO_MEASURES)
        cleaned["choices"] = choices
        return cleaned
