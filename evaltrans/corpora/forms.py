"""The corpus upload form: field validation only; parsing happens in ``parsing``, run by
``import_jobs``."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath
from typing import Any

from django import forms
from django.conf import settings
from django.core.files.uploadedfile import UploadedFile

from .formats.reading import encoding_problem
from .import_jobs import Upload
from .parsing import IMPORT_FORMATS, total_size_problem

FORMAT_HELP = {
    "text": "Plain text, one sentence per line: a source file, reference files, system files.",
    "sgml": "NIST/WMT mteval SGML: srcset, refset and tstset files.",
    "wmt-xml": "WMT XML (2021 on): sources, references and system outputs in one file.",
    "evaltrans-xml": "EvalTrans database: sources, targets and their levels.",
    "mqm-tsv": "Google MQM TSV: texts of every rated system (ratings are imported separately).",
}
TOO_LARGE = "{name} is {size:,} bytes; the limit is {limit:,} bytes."
SYSTEM_NAME_COUNT = "{names} system names for {files} system files."


def check_upload_sizes(uploads: Iterable[UploadedFile | None]) -> None:
    """Refuse any upload above ``CORPUS_UPLOAD_MAX_BYTES``, naming the file, and uploads above
    ``CORPUS_UPLOAD_MAX_TOTAL_BYTES`` together; checked before any file is read into memory."""
    limit = settings.CORPUS_UPLOAD_MAX_BYTES
    sizes = []
    for upload in uploads:
        if upload is None or upload.size is None:
            continue
        if upload.size > limit:
            raise forms.ValidationError(
                TOO_LARGE.format(name=upload.name, size=upload.size, limit=limit)
            )
        sizes.append(upload.size)
    problem = total_size_problem(sizes)
    if problem is not None:
        raise forms.ValidationError(problem[0].upper() + problem[1:] + ".")


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class CorpusFileField(forms.FileField):
    """A file field that lets empty files through: the parser then refuses them by file name
    ("ref.en: the file is empty"), where Django's own message would not say which file."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_empty_file", True)
        super().__init__(*args, **kwargs)


class MultipleFileField(CorpusFileField):
    """A file field that takes several files (Django's documented pattern)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data: Any, initial: Any = None) -> list[UploadedFile]:
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(item, initial) for item in data if item]
        return [single(data, initial)] if data else []


class CorpusImportForm(forms.Form):
    name = forms.CharField(
        max_length=200,
        help_text="Importing new content under an existing name makes a new version.",
    )
    format = forms.ChoiceField(
        choices=[(name, f"{name} — {FORMAT_HELP[name]}") for name in IMPORT_FORMATS]
    )
    source_lang = forms.CharField(max_length=16, required=False, label="Source language")
    target_lang = forms.CharField(max_length=16, required=False, label="Target language")
    source = CorpusFileField(required=False, label="Source file")
    references = MultipleFileField(
        required=False,
        label="Reference files",
        help_text="Text: labelled A, B, … in the order chosen; SGML: by each file's refid.",
    )
    systems = MultipleFileField(required=False, label="System files")
    system_names = forms.CharField(
        required=False,
        help_text="Text format: comma-separated names in file order (default: file names).",
    )
    docs = CorpusFileField(required=False, label="Document ids (text format, optional)")
    file = CorpusFileField(required=False, label="Corpus file (WMT XML, EvalTrans XML, MQM TSV)")
    reference_systems = forms.CharField(
        required=False, initial="ref", help_text="MQM TSV: systems that are references."
    )
    # The label is the name the invalid-encoding message refers to ("the form's Encoding field").
    encoding = forms.CharField(
        max_length=32,
        required=False,
        label="Encoding",
        help_text="Default UTF-8; XML files follow their declaration.",
    )

    def clean_encoding(self) -> str:
        encoding = self.cleaned_data["encoding"].strip()
        problem = encoding_problem(encoding) if encoding else None
        if problem is not None:
            raise forms.ValidationError(problem[0].upper() + problem[1:] + ".")
        return encoding

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        check_upload_sizes(self._uploads(cleaned))
        names = [
            name.strip() for name in cleaned.get("system_names", "").split(",") if name.strip()
        ]
        systems = cleaned.get("systems") or []
        if names and len(names) != len(systems):
            raise forms.ValidationError(
                SYSTEM_NAME_COUNT.format(names=len(names), files=len(systems))
            )
        return cleaned

    @staticmethod
    def _uploads(cleaned: dict[str, Any]) -> list[UploadedFile]:
        single = [cleaned.get(key) for key in ("source", "docs", "file")]
        return (
            [f for f in single if f]
            + list(cleaned.get("references") or [])
            + list(cleaned.get("systems") or [])
        )

    def uploads(self) -> list[Upload]:
        """The validated files with their part in the import (system files with their names)."""
        data = self.cleaned_data
        systems = data.get("systems") or []
        names = [n.strip() for n in data.get("system_names", "").split(",") if n.strip()]
        names = names or [_system_name(upload.name) for upload in systems]
        uploads = [Upload("source", data["source"])] if data.get("source") else []
        uploads += [Upload("reference", upload) for upload in data.get("references") or []]
        uploads += [
            Upload("system", upload, label=name)
            for name, upload in zip(names, systems, strict=True)
        ]
        uploads += [Upload(role, data[role]) for role in ("docs", "file") if data.get(role)]
        return uploads

    def options(self) -> dict[str, Any]:
        """The other fields of the import, as JSON for the import job."""
        data = self.cleaned_data
        reference_systems = [
            n.strip() for n in data.get("reference_systems", "").split(",") if n.strip()
        ]
        return {
            "source_lang": data.get("source_lang", "").strip(),
            "target_lang": data.get("target_lang", "").strip(),
            "encoding": data.get("encoding") or "",
            "reference_systems": reference_systems or ["ref"],
        }


def _system_name(file_name: str | None) -> str:
    """A system file's default name: its file name without the last extension."""
    name = PurePath(file_name or "system").name
    stem, _, _ = name.rpartition(".")
    return stem or name
