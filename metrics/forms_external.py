"""The "import metric scores" form: field validation only; parsing and storing happen in
``metrics.services.external``."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from django import forms
from django.core.files.uploadedfile import UploadedFile

from evaltrans.corpora.formats.base import InputFile
from evaltrans.corpora.forms import CorpusFileField, check_upload_sizes
from evaltrans.corpora.models import TestSet
from evaltrans.corpora.selectors import testset_list
from metrics.external_scores import (
    DEFAULT_SIGNATURE,
    NAME_MAX_LENGTH,
    ExternalScoresError,
    check_name,
)

DIRECTIONS = [("higher", "Higher is better"), ("lower", "Lower is better (an error measure)")]


class TestSetChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: TestSet) -> str:
        return (
            f"{obj} ({obj.source_lang}→{obj.target_lang}, {obj.segment_count} segments, "
            f"{obj.system_count} systems)"
        )


class ExternalScoresForm(forms.Form):
    test_set = TestSetChoiceField(queryset=TestSet.objects.none(), label="Test set")
    name = forms.CharField(
        max_length=NAME_MAX_LENGTH,
        label="Measure name",
        help_text="E.g. COMET-22: letters, digits and - _ . +; not the name of a built-in measure.",
    )
    direction = forms.ChoiceField(choices=DIRECTIONS, widget=forms.RadioSelect, label="Direction")
    signature = forms.CharField(
        max_length=900,
        required=False,
        initial=DEFAULT_SIGNATURE,
        help_text="The measure's version and settings as you know them (free text). Importing the "
        "same name and signature again replaces the scores.",
    )
    # Empty files pass: the parser refuses them by file name ("x.seg.score: the file is empty").
    seg_file = CorpusFileField(
        required=False,
        label="Segment scores (mt-metrics-eval *.seg.score)",
        help_text="SYSTEM<TAB>SCORE, each system's lines in segment order.",
    )
    sys_file = CorpusFileField(
        required=False,
        label="System scores (mt-metrics-eval *.sys.score)",
        help_text="SYSTEM<TAB>SCORE, one line per system. Without it, a system's score is the "
        "mean of its segment scores.",
    )
    tsv_file = CorpusFileField(
        required=False,
        label="Or a TSV file",
        help_text="system<TAB>segment<TAB>score with 1-based segment numbers (instead of the "
        "mt-metrics-eval files).",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["test_set"].queryset = testset_list()

    def clean_name(self) -> str:
        try:
            return check_name(self.cleaned_data["name"])
        except ExternalScoresError as error:
            raise forms.ValidationError(str(error)) from None

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        check_upload_sizes(
            [cleaned.get("seg_file"), cleaned.get("sys_file"), cleaned.get("tsv_file")]
        )
        return cleaned

    @property
    def higher_is_better(self) -> bool:
        return self.cleaned_data["direction"] == "higher"

    def upload(self, field: str) -> InputFile | None:
        """The validated file of ``field`` as parser input, if one was given."""
        upload: UploadedFile | None = self.cleaned_data.get(field)
        if not upload:
            return None
        # Messages name the file as the user knows it, without any client-side folder.
        return InputFile(name=PurePath(upload.name or "upload").name, data=upload.read())
