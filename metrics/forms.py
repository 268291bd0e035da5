"""The "start a run" form: systems, a preset or measures with their options (validation only).

Option fields are built from each measure's ``Option`` declarations (``metrics.core``), named
``opt__<measure>__<option>``. With a preset chosen, the preset's values are used and the
option fields are ignored (the page's script fills and locks them so the user sees what runs).

Numbers are converted and bounded by ``Option.convert``, as on the command line, so both give
the same message. An option that names a file of the server (``Option.file == "path"``, WNM's
``corpus-stats``) is refused whatever its value: the message must not tell whether the file
exists. The file's text comes as an upload instead (``file == "content"``).

HTER's references are the post-edits of a campaign: its ``post-edits`` option is a choice of
the test set's post-editing campaigns, and the fingerprint of their post-edits is filled in
by the run (``Measure.run_filled_options``), not asked.
"""

from __future__ import annotations

from typing import Any

from django import forms

from evaltrans.corpora.models import TestSet
from metrics.core import METRICS, Measure, MeasureError
from metrics.core.base import FILE_MAX_BYTES, Option, format_number
from metrics.core.presets import PRESETS
from metrics.measure_choices import (
    NO_MEASURES,
    RunError,
    measure_build,
    measure_choices_resolve,
)
from metrics.selectors.hter import testset_postedit_campaign_names

PRESET_LABELS = {
    "thesis": "Thesis defaults (each measure at the settings the thesis found best)",
    "wmt": "WMT standard (sacreBLEU's BLEU, chrF and TER defaults)",
    "default": "Every measure at its own defaults",
}


SERVER_PATH_REFUSED = (
    "{measure} {key}: the web form takes no file names of the server; upload the file instead"
)
NO_POSTEDIT_CAMPAIGN = (
    "needs a post-editing campaign on this test set: its post-edits are the references "
    "(Judging → new campaign, protocol post-editing)"
)
UPLOAD_TOO_LARGE = "{measure} {key}: the file has {size:,} bytes, above the limit of {limit:,}"
UPLOAD_NOT_UTF8 = "{measure} {key}: the file is not UTF-8 text ({reason} at byte {start})"


def option_field_name(measure: str, key: str) -> str:
    return f"opt__{measure}__{key}"


class OptionNumberField(forms.Field):
    """A number option: ``Option.convert`` turns the text into the value (bounds, finiteness
    and size checked there), and the input carries the bounds for the browser."""

    def __init__(self, *, key: str, option: Option, **kwargs: Any) -> None:
        self.key, self.option = key, option
        attributes = {"step": "1" if option.kind is int else "any"}
        if option.minimum is not None:
            attributes["min"] = format_number(option.minimum)
        if option.maximum is not None:
            attributes["max"] = format_number(option.maximum)
        super().__init__(widget=forms.NumberInput(attrs=attributes), **kwargs)

    def to_python(self, value: Any) -> int | float | None:
        if value in self.empty_values:
            return None
        try:
            return self.option.convert(self.key, value)
        except MeasureError as error:
            raise forms.ValidationError(str(error), code="invalid") from None


def _option_field(key: str, option: Option) -> forms.Field:
    common: dict[str, Any] = {"help_text": option.help, "initial": option.default}
    if option.file == "content":
        return forms.FileField(required=False, help_text=option.help)
    if option.kind is bool:
        return forms.BooleanField(required=False, **common)
    if option.choices is not None:
        return forms.ChoiceField(choices=[(c, c) for c in option.choices], **common)
    if option.kind in (int, float):
        return OptionNumberField(key=key, option=option, **common)
    return forms.CharField(max_length=200, **common)


def uploaded_text(measure: str, key: str, upload: Any) -> str:
    """The text of an uploaded file for a ``file="content"`` option; ValidationError when it is
    too large (checked before reading) or not UTF-8."""
    if upload.size > FILE_MAX_BYTES:
        raise forms.ValidationError(
            UPLOAD_TOO_LARGE.format(
                measure=measure, key=key, size=upload.size, limit=FILE_MAX_BYTES
            )
        )
    data = upload.read(FILE_MAX_BYTES + 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise forms.ValidationError(
            UPLOAD_NOT_UTF8.format(measure=measure, key=key, reason=error.reason, start=error.start)
        ) from None


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
        self.postedit_campaigns: list[str] = []
        systems = test_set.systems.order_by("name")
        self.fields["systems"].queryset = systems
        self.fields["systems"].initial = list(systems)
        self.fields["preset"].choices = [("", "Custom: the options below")] + [
            (name, PRESET_LABELS.get(name, name)) for name in PRESETS if name != "default"
        ]
        self.fields["measures"].choices = [(name, name) for name in METRICS]
        for name, measure in METRICS.items():
            for key, option in measure.options.items():
                if option.file == "path" or key in measure.run_filled_options:
                    continue  # never a field: see _refuse_server_paths; filled by the run
                self.fields[option_field_name(name, key)] = _option_field(key, option)
                self.fields[option_field_name(name, key)].required = False
            if measure.targeted_references:
                self._offer_postedit_campaigns(name)

    def _offer_postedit_campaigns(self, name: str) -> None:
        """HTER's ``post-edits``: a choice of the test set's post-editing campaigns."""
        campaigns = testset_postedit_campaign_names(test_set=self.test_set)
        field = self.fields[option_field_name(name, "post-edits")]
        self.fields[option_field_name(name, "post-edits")] = forms.ChoiceField(
            choices=[(campaign, campaign) for campaign in campaigns],
            required=False,
            help_text=field.help_text,
            initial=campaigns[0] if campaigns else "",
        )
        self.postedit_campaigns = campaigns

    def measure_groups(self) -> list[dict[str, Any]]:
        """For the template: each measure with its description and option fields;
        ``has_errors`` opens the measures whose options were refused; ``unavailable`` says
        why the measure cannot run here at its defaults (what to install), or None."""
        groups = []
        for name, measure in METRICS.items():
            fields = [
                (key, self[option_field_name(name, key)])
                for key in measure.options
                if option_field_name(name, key) in self.fields
            ]
            groups.append(
                {
                    "name": name,
                    "description": measure.description,
                    "higher_is_better": measure.higher_is_better,
                    "fields": fields,
                    "has_errors": any(field.errors for _, field in fields),
                    "unavailable": self._unavailable_reason(measure),
                }
            )
        return groups

    def _unavailable_reason(self, measure: type[Measure]) -> str | None:
        if measure.targeted_references and not self.postedit_campaigns:
            return NO_POSTEDIT_CAMPAIGN
        return measure.unavailable_reason()

    def _refuse_server_paths(self) -> bool:
        """Refuse any value posted for an option naming a server file, with one message for
        every value (a different one for missing files would tell which files exist)."""
        refused = False
        for name, measure in METRICS.items():
            for key, option in measure.options.items():
                if option.file == "path" and self.data.get(option_field_name(name, key), ""):
                    self.add_error(None, SERVER_PATH_REFUSED.format(measure=name, key=key))
                    refused = True
        return refused

    def _measure_options(self, name: str, cleaned: dict[str, Any]) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for key, option in METRICS[name].options.items():
            field = option_field_name(name, key)
            value = cleaned.get(field)
            if option.file == "content":
                if value:
                    values[key] = uploaded_text(name, key, value)
            elif value not in (None, "") or option.kind is bool:
                values[key] = value
        return values

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self._refuse_server_paths():
            return cleaned
        preset = cleaned.get("preset") or ""
        names = list(cleaned.get("measures") or [])
        if not names and not preset:
            raise forms.ValidationError(NO_MEASURES)
        options: dict[str, dict[str, Any]] = {}
        if not preset:
            for name in names:
                options[name] = self._measure_options(name, cleaned)
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
