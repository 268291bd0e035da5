"""The judgments upload form: field validation only; parsing and storing happen in ``services``."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from django import forms
from django.core.files.uploadedfile import UploadedFile

from evaltrans.corpora.formats.base import InputFile
from evaltrans.corpora.forms import CorpusFileField, check_upload_sizes
from evaltrans.corpora.models import TestSet
from evaltrans.corpora.selectors import testset_list

from .models import JudgmentSet
from .services import IMPORT_FORMATS

FORMAT_HELP = {
    "wmt-da-csv": "WMT Direct Assessment, the whitespace-separated rows of ad-*-good-stnd.csv; "
    "each score is the judge's z (add the judge stats for raw 0–100 scores).",
    "mqm-tsv": "MQM annotations, one error span per row with rater, category and severity; "
    "scored with the published weights.",
    "evaltrans-xml": "An EvalTrans database: the <eval> elements of each target, one aspect "
    "per levels class.",
}
NO_TEST_SET = "None: keep the judgments stand-alone"


class TestSetChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: TestSet) -> str:
        return f"{obj} ({obj.source_lang}→{obj.target_lang}, {obj.segment_count} segments)"


class JudgmentImportForm(forms.Form):
    name = forms.CharField(max_length=200, help_text="A new name: sets are never overwritten.")
    format = forms.ChoiceField(
        choices=[(value, f"{value} — {label}") for value, label in JudgmentSet.SourceFormat.choices]
    )
    # Empty files pass: the parser refuses them by file name ("ratings.tsv: the file is empty").
    file = CorpusFileField(label="Judgments file")
    judge_stats = CorpusFileField(
        required=False,
        label="Judge stats (WMT DA only, optional)",
        help_text="WMT's ad-*-trk-mean-sd.txt with each judge's mean and sd: gives the raw "
        "0–100 scores. Without it only WMT's z-scores are kept.",
    )
    test_set = TestSetChoiceField(
        queryset=TestSet.objects.none(),
        required=False,
        empty_label=NO_TEST_SET,
        label="Test set (optional)",
        help_text="Attached only where the file's systems, segment ids and source sentences are "
        "the test set's; otherwise kept stand-alone with a note saying why. WMT DA files carry "
        "no text and are always kept stand-alone.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["test_set"].queryset = testset_list()

    @property
    def format_help(self) -> list[tuple[str, str]]:
        """What each format's file holds, shown under the format choice."""
        return [(name, FORMAT_HELP[name]) for name in IMPORT_FORMATS]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        check_upload_sizes([cleaned.get("file"), cleaned.get("judge_stats")])
        return cleaned

    def judgments_file(self) -> InputFile:
        """The validated judgments file as parser input."""
        return _input(self.cleaned_data["file"])

    def judge_stats_file(self) -> InputFile | None:
        """The validated judge-stats file as parser input, if one was given."""
        upload = self.cleaned_data.get("judge_stats")
        return _input(upload) if upload else None


def _input(upload: UploadedFile) -> InputFile:
    # Messages name the file as the user knows it, without any client-side folder.
    return InputFile(name=PurePath(upload.name or "upload").name, data=upload.read())
