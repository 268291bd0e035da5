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
from .practice import DEFAULT_SCREENS as DEFAULT_PRACTICE_SCREENS
from .practice import MAX_SCREENS as MAX_PRACTICE_SCREENS
from .scales import (
    DA_ASPECTS,
    DA_BASES,
    da_scales,
    default_scales,
    esa_scales,
    mqm_scales,
    postedit_scales,
    ranking_scales,
    scale_validate,
)
from .services.campaigns import (
    DA_BAD_REFERENCE_SHARE,
    MAX_CONTEXT,
    PROTOCOL_DEFAULTS,
    RANKING_PER_SCREEN,
)
from .spans import SpanError, categories_validate, default_categories

ERROR_SCALES_JSON = "The scales must be a JSON list of scales: {error}"
ERROR_SCALE = "Scale {number}: {error}"
ERROR_NO_SCALES = "Give the scales of a categorical campaign."
ERROR_NO_DA_ASPECTS = "Choose adequacy, fluency or both."
SHOW_REFERENCE = {
    # protocol: (the tickbox's label, its help, whether it starts ticked)
    Campaign.Protocol.RANKING: (
        "Show the reference while ranking",
        "WMT showed source and reference; without it, judges rank against the source.",
        True,
    ),
    Campaign.Protocol.MQM: (
        "Show the reference while marking errors",
        "WMT MQM and ESA show the source only (bilingual raters).",
        False,
    ),
    Campaign.Protocol.ESA: (
        "Show the reference while marking errors",
        "WMT MQM and ESA show the source only (bilingual raters).",
        False,
    ),
    Campaign.Protocol.POST_EDIT: (
        "Show the reference while post-editing",
        "Bilingual post-editors work from the source; HTER's original post-editors (GALE) "
        "were shown the reference.",
        False,
    ),
}
"""The one "show the reference" tickbox, as each protocol that has it words it (the form's
script swaps label, help and default when the protocol changes)."""
DA_BASIS_CHOICES = [
    ("source", "Against the source (bilingual judges; WMT since 2019)"),
    ("reference", "Against the reference (monolingual judges; WMT 2016–2018)"),
]

SCORE_FIELD = re.compile(r"^score-(?P<assigned>\d+)-(?P<aspect>[-\w]+)$")
SPANS_FIELD = re.compile(r"^spans-(?P<assigned>\d+)$")
POSTEDIT_FIELD = re.compile(r"^postedit-(?P<assigned>\d+)$")
COMMENT_FIELD = re.compile(r"^comment-(?P<assigned>\d+)$")
MAX_SPANS_FIELD = 100_000
# No screen honestly takes a judge more than an hour of active time.
MAX_ACTIVE_MS = 3_600_000


class CampaignForm(forms.Form):
    """A new campaign. The protocol decides where the scales come from: the JSON of ``scales``
    (categorical), the direct-assessment options (WMT's 0-100 sliders), the ranking options
    (the 1-5 rank, with or without the reference; candidates per screen) or the error-span
    options (MQM: the category list, pre-filled with the WMT typology; MQM and ESA: whether the
    reference is shown) or the post-editing options (reference shown; share translated from
    scratch); options of the
    other protocols are dropped, so ``cleaned_data`` holds exactly ``campaign_create``'s
    arguments."""

    name = forms.CharField(max_length=200)
    protocol = forms.ChoiceField(
        choices=Campaign.Protocol.choices,
        initial=Campaign.Protocol.CATEGORICAL,
        widget=forms.RadioSelect,
        required=False,
    )
    da_aspects = forms.MultipleChoiceField(
        label="Aspects",
        choices=[(name, name.capitalize()) for name in DA_ASPECTS],
        initial=["adequacy"],
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text="WMT judges adequacy only; fluency is judged first, without the reference.",
    )
    da_basis = forms.ChoiceField(
        label="Adequacy judged", choices=DA_BASIS_CHOICES, initial="source", required=False
    )
    bad_reference_share = forms.FloatField(
        min_value=0.0,
        max_value=0.5,
        initial=DA_BAD_REFERENCE_SHARE,
        required=False,
        label="Share of bad references",
        help_text="0 to 0.5 of each judge's candidates come back later degraded (a phrase "
        "replaced by one from another sentence); WMT: 10 per 70 candidates (0.14).",
    )
    candidates_per_screen = forms.IntegerField(
        min_value=2,
        max_value=RANKING_PER_SCREEN,
        initial=RANKING_PER_SCREEN,
        required=False,
        label="Candidates per screen",
        help_text="2 to 5 outputs of one source ranked side by side (WMT 2012–2016: 5).",
    )
    error_categories = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}),
        required=False,
        label="Error categories",
        help_text="One per line, as the MQM TSV spells them (default: the WMT MQM typology; "
        "major Non-translation! weighs 25, minor Fluency/Punctuation 0.1).",
    )
    show_reference = forms.BooleanField(
        required=False,
        initial=True,
        label="Show the reference",
        help_text="Ranking, MQM, ESA and post-editing: the reference above the translations.",
    )
    scratch_share = forms.FloatField(
        min_value=0.0,
        max_value=0.5,
        initial=0.0,
        required=False,
        label="Share translated from scratch",
        help_text="0 to 0.5 of the items are shown without the candidate, to translate from "
        "scratch: the campaign page then reports the relative efficiency of post-editing "
        "(time per word from scratch / time per word post-editing) per system.",
    )
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
    show_source = forms.BooleanField(
        required=False,
        initial=True,
        label="Show the source (bilingual judges)",
        help_text="WMT DA, MQM and ESA are source-based. Without the source, judges see the "
        "reference where an aspect needs it (monolingual judges), else the translation only.",
    )
    show_context = forms.BooleanField(
        required=False,
        initial=False,
        label="Show document context",
        help_text="Sentences of the same document around the judged one, subdued: their "
        "sources (or the reference's sentences) and, one translation per screen, the same "
        "system's translations of them (WMT document-level DA).",
    )
    context_before = forms.IntegerField(
        min_value=0,
        max_value=MAX_CONTEXT,
        initial=2,
        required=False,
        label="Sentences before",
        help_text="0–5 (WMT document-level DA: 2).",
    )
    context_after = forms.IntegerField(
        min_value=0,
        max_value=MAX_CONTEXT,
        initial=0,
        required=False,
        label="Sentences after",
        help_text="0–5.",
    )
    comment_box = forms.BooleanField(
        required=False,
        initial=False,
        label="Comment box under each item",
        help_text="Optional for judges, at most 1,000 characters; exported in the column "
        "'comment'.",
    )
    repeat_share = forms.FloatField(
        min_value=0.0,
        max_value=0.5,
        initial=PROTOCOL_DEFAULTS[Campaign.Protocol.CATEGORICAL]["repeat_share"],
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
    practice = forms.ChoiceField(
        label="Practice phase",
        choices=Campaign.Practice.choices,
        initial=Campaign.Practice.OFFERED,
        required=False,
        help_text="Before the real items, a few screens with known answers from this test set "
        "(its reference: a good translation; a candidate with a phrase pasted from another "
        "sentence: a bad one), with feedback after each. Nothing of it is a judgment.",
    )
    practice_screens = forms.IntegerField(
        min_value=1,
        max_value=MAX_PRACTICE_SCREENS,
        initial=DEFAULT_PRACTICE_SCREENS,
        required=False,
        label="Practice screens",
        help_text="1 to 10.",
    )
    seed = forms.IntegerField(
        required=False, min_value=0, help_text="Leave empty for a random seed; it is stored."
    )
    scales = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 12, "spellcheck": "false"}),
        required=False,
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
        self.fields["error_categories"].initial = "\n".join(default_categories())
        # Read by the form's script: the tickbox's label, help and default per protocol.
        self.fields["show_reference"].widget.attrs.update(
            {
                key: value
                for protocol, (label, help_text, ticked) in SHOW_REFERENCE.items()
                for key, value in (
                    (f"data-label-{protocol}", label),
                    (f"data-help-{protocol}", help_text),
                    (f"data-default-{protocol}", "true" if ticked else "false"),
                )
            }
        )
        # Read by the form's script: switching the protocol swaps in its default.
        self.fields["repeat_share"].widget.attrs.update(
            {
                f"data-default-{protocol}": str(defaults["repeat_share"])
                for protocol, defaults in PROTOCOL_DEFAULTS.items()
            }
        )

    def clean_scales(self) -> list[dict[str, Any]] | None:
        if not self.cleaned_data["scales"].strip():
            return None
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

    def clean_protocol(self) -> str:
        """A form sent without a protocol (older pages, scripts) is categorical, as before."""
        return self.cleaned_data.get("protocol") or Campaign.Protocol.CATEGORICAL

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        for name, default in (("context_before", 2), ("context_after", 0)):
            if cleaned.get(name) is None and name not in self.errors:
                cleaned[name] = default
        aspects = cleaned.pop("da_aspects", None) or []
        basis = cleaned.pop("da_basis", None) or "source"
        per_screen = cleaned.pop("candidates_per_screen", None)
        show_reference = cleaned.pop("show_reference", False)
        with_reference = spans_reference = postedit_reference = show_reference
        categories = cleaned.pop("error_categories", "") or ""
        cleaned["practice"] = cleaned.get("practice") or Campaign.Practice.OFF
        cleaned["practice_screens"] = cleaned.get("practice_screens") or DEFAULT_PRACTICE_SCREENS
        scratch_share = cleaned.pop("scratch_share", None)
        cleaned["error_categories"] = None
        cleaned["scratch_share"] = None
        if cleaned.get("protocol") in (Campaign.Protocol.MQM, Campaign.Protocol.ESA):
            cleaned["presentation"] = Campaign.Presentation.SINGLE
        if cleaned.get("protocol") == Campaign.Protocol.POST_EDIT:
            cleaned["presentation"] = Campaign.Presentation.SINGLE
            cleaned["scales"] = postedit_scales(reference=postedit_reference)
            cleaned["bad_reference_share"] = None
            cleaned["reuse_judgments"] = False
            cleaned["scratch_share"] = scratch_share or 0.0
        elif cleaned.get("protocol") == Campaign.Protocol.MQM:
            cleaned["scales"] = mqm_scales(reference=spans_reference)
            cleaned["bad_reference_share"] = None
            try:
                cleaned["error_categories"] = categories_validate(categories.splitlines())
            except SpanError as error:
                self.add_error("error_categories", str(error))
        elif cleaned.get("protocol") == Campaign.Protocol.ESA:
            cleaned["scales"] = esa_scales(reference=spans_reference)
            cleaned["bad_reference_share"] = None
        elif cleaned.get("protocol") == Campaign.Protocol.RANKING:
            cleaned["scales"] = ranking_scales(reference=with_reference)
            cleaned["bad_reference_share"] = None
            cleaned["candidates_per_screen"] = per_screen or RANKING_PER_SCREEN
        elif cleaned.get("protocol") == Campaign.Protocol.DIRECT_ASSESSMENT:
            if not aspects:
                self.add_error("da_aspects", ERROR_NO_DA_ASPECTS)
            elif basis in DA_BASES:
                cleaned["scales"] = da_scales(aspects=aspects, basis=basis)
        else:
            cleaned["bad_reference_share"] = None
            if "scales" in cleaned and cleaned["scales"] is None:
                self.add_error("scales", ERROR_NO_SCALES)
        return cleaned


class ScreenForm(forms.Form):
    """A screen's submission: its token, the active time, and ``score-<item>-<aspect>`` fields."""

    token = forms.CharField(max_length=500)
    active_ms = forms.IntegerField(min_value=0, required=False)

    def clean_active_ms(self) -> int:
        return min(self.cleaned_data.get("active_ms") or 0, MAX_ACTIVE_MS)

    def spans(self) -> dict[int, object]:
        """The error spans sent (MQM, ESA), keyed by assigned item id: each ``spans-<item>``
        field holds a JSON list; what is not JSON comes through as None (the service refuses
        it with a message)."""
        spans: dict[int, object] = {}
        for name, value in self.data.items():
            match = SPANS_FIELD.match(name)
            if not match:
                continue
            try:
                spans[int(match["assigned"])] = (
                    json.loads(value) if len(value) <= MAX_SPANS_FIELD else None
                )
            except (TypeError, ValueError):
                spans[int(match["assigned"])] = None
        return spans

    def postedits(self) -> dict[int, object]:
        """The post-edits sent (post-editing), keyed by assigned item id, as typed (the service
        cleans and checks them)."""
        return {
            int(match["assigned"]): value
            for name, value in self.data.items()
            if (match := POSTEDIT_FIELD.match(name))
        }

    def comments(self) -> dict[int, object]:
        """The comments sent (campaigns with a comment box), keyed by assigned item id, as
        typed (the service trims and checks them)."""
        return {
            int(match["assigned"]): value
            for name, value in self.data.items()
            if (match := COMMENT_FIELD.match(name))
        }

    def scores(self) -> dict[tuple[int, str], int]:
        """The levels sent, keyed by (assigned item id, aspect name); non-numbers are skipped
        (the service refuses levels the scale does not have)."""
        scores = {}
        for name, value in self.data.items():
            match = SCORE_FIELD.match(name)
            if match and value.strip().lstrip("-").isdigit():
                scores[(int(match["assigned"]), match["aspect"])] = int(value)
        return scores
