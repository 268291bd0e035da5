"""Forms of the judging app: field validation only (the services decide the rest)."""

from __future__ import annotations

import json
import re
from typing import Any

from django import forms
from django.contrib.auth import get_user_model

from evaltrans.corpora.models import Reference, TestSet
from evaltrans.roles import JUDGES_GROUP

from .models import Campaign
from .scales import default_scales, scale_validate

ERROR_SCALES_JSON = "The scales must be a JSON list of scales: {error}"
ERROR_SCALE = "Scale {number}: {error}"

SCORE_FIELD = re.compile(r"^score-(?P<assigned>\d+)-(?P<aspect>[-\w]+)$")
# No screen honestly takes a judge more than an hour of active time.
MAX_ACTIVE_MS = 3_600_000


class CampaignForm(forms.Form):
    name = forms.CharField(max_length=200)
    systems = forms.ModelMultipleChoiceField(
        queryset=None, widget=forms.CheckboxSelectMultiple, required=False
    )
    reference_label = forms.ChoiceField(
        label="Reference shown for adequacy", choices=(), required=False
    )
    reference_as_system = forms.ChoiceField(
        label="Judge a reference as a system (quality control)", choices=(), required=False
    )
    judges = forms.ModelMultipleChoiceField(queryset=None, widget=forms.CheckboxSelectMultiple)
    judges_per_item = forms.IntegerField(min_value=1, max_value=20, initial=2)
    presentation = forms.ChoiceField(
        choices=Campaign.Presentation.choices, initial=Campaign.Presentation.SINGLE
    )
    aspect_order = forms.ChoiceField(
        choices=Campaign.AspectOrder.choices, initial=Campaign.AspectOrder.SEQUENTIAL
    )
    show_source = forms.BooleanField(required=False, initial=True)
    show_context = forms.BooleanField(required=False, initial=False, label="Show document context")
    repeat_share = forms.FloatField(
        min_value=0.0,
        max_value=0.5,
        initial=0.05,
        label="Share of repeated screens",
        help_text="0 to 0.5; repeats measure each judge's consistency.",
    )
    reuse_judgments = forms.BooleanField(
        required=False, label="Reuse judgments of identical (source, text) pairs"
    )
    segment_sample = forms.IntegerField(
        required=False,
        min_value=1,
        label="Judge a sample of segments",
        help_text="How many segments to draw at random (with the seed); empty: every segment.",
    )
    seed = forms.IntegerField(
        required=False, min_value=0, help_text="Leave empty for a random seed; it is stored."
    )
    scales = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 12, "spellcheck": "false"}),
        help_text="The aspects and their levels as JSON (default: LDC fluency and adequacy).",
    )

    def __init__(self, *args: Any, test_set: TestSet, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["systems"].queryset = test_set.systems.order_by("name")
        self.fields["judges"].queryset = (
            get_user_model().objects.filter(groups__name=JUDGES_GROUP).order_by("username")
        )
        labels = list(
            Reference.objects.filter(segment__test_set=test_set)
            .values_list("label", flat=True)
            .distinct()
            .order_by("label")
        )
        self.fields["reference_label"].choices = [(label, label) for label in labels]
        self.fields["reference_as_system"].choices = [("", "— none —")] + [
            (label, label) for label in labels
        ]
        self.fields["scales"].initial = json.dumps(default_scales(), indent=2, ensure_ascii=False)

    def clean_scales(self) -> list[dict[str, Any]]:
        try:
            scales = json.loads(self.cleaned_data["scales"])
        except json.JSONDecodeError as error:
            raise forms.ValidationError(ERROR_SCALES_JSON.format(error=error)) from error
        if not isinstance(scales, list) or not scales:
            raise forms.ValidationError(ERROR_SCALES_JSON.format(error="not a non-empty list"))
        cleaned = []
        for number, scale in enumerate(scales, start=1):
            try:
                cleaned.append(scale_validate(scale if isinstance(scale, dict) else {}))
            except ValueError as error:
                raise forms.ValidationError(
                    ERROR_SCALE.format(number=number, error=error)
                ) from error
        return cleaned


class ScreenForm(forms.Form):
    """A screen's submission: its token, the active time, and ``score-<item>-<aspect>`` fields."""

    token = forms.CharField(max_length=500)
    active_ms = forms.IntegerField(min_value=0, required=False)

    def clean_active_ms(self) -> int:
        return min(self.cleaned_data.get("active_ms") or 0, MAX_ACTIVE_MS)

    def scores(self) -> dict[tuple[int, str], int]:
        """The levels sent, keyed by (assigned item id, aspect name); non-numbers are skipped
        (the service refuses levels the scale does not have)."""
        scores = {}
        for name, value in self.data.items():
            match = SCORE_FIELD.match(name)
            if match and value.strip().lstrip("-").isdigit():
                scores[(int(match["assigned"]), match["aspect"])] = int(value)
        return scores
