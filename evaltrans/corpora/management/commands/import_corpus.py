"""python manage.py import_corpus FORMAT … --name NAME (see docs/import-formats.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaltrans.corpora.formats.base import CorpusFormatError, InputFile
from evaltrans.corpora.parsing import (
    IMPORT_FORMATS,
    CorpusInputError,
    CorpusInputs,
    max_segments,
    parse_corpus,
    split_named,
    total_size_problem,
)
from evaltrans.corpora.services import CorpusImportError, testset_import

NO_SUCH_FILE = "{path}: no such file"
UNREADABLE = "{path}: cannot be read ({reason})"
FILE_TOO_LARGE = (
    "{path}: {size:,} bytes is above the limit of {limit:,} bytes (CORPUS_UPLOAD_MAX_BYTES)"
)


class Command(BaseCommand):
    help = "Import a corpus (sources, references, system outputs) as a new test set or version."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("format", choices=IMPORT_FORMATS)
        parser.add_argument("--name", required=True, help="Test set name.")
        parser.add_argument("--source", help="Source file (text, sgml).")
        parser.add_argument(
            "--ref",
            action="append",
            default=[],
            help="Reference file: FILE or LABEL=FILE (text default labels A, B, …; "
            "SGML default: the file's refid).",
        )
        parser.add_argument(
            "--system",
            action="append",
            default=[],
            help="System file; text format: NAME=FILE.",
        )
        parser.add_argument("--file", help="The corpus file (wmt-xml, evaltrans-xml, mqm-tsv).")
        parser.add_argument("--docs", help="Text format: one document id per line.")
        parser.add_argument("--source-lang", default="")
        parser.add_argument("--target-lang", default="")
        parser.add_argument(
            "--encoding", help="Input encoding (default UTF-8; XML: its own declaration)."
        )
        parser.add_argument(
            "--reference-system",
            action="append",
            default=[],
            help="mqm-tsv: a system whose rows are a reference (default: ref).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        import_format = options["format"]
        self._sizes: list[int] = []
        try:
            inputs = self._inputs(import_format, options)
            corpus = parse_corpus(import_format, inputs)
            result = testset_import(
                corpus=corpus, name=options["name"], import_format=import_format
            )
        except (CorpusFormatError, CorpusInputError, CorpusImportError) as error:
            raise CommandError(str(error)) from None
        self.stdout.write(self.style.SUCCESS(result.summary))

    def _inputs(self, import_format: str, options: dict[str, Any]) -> CorpusInputs:
        references = [
            (label, self._read(path))
            for label, path in (_label_and_path(ref) for ref in options["ref"])
        ]
        if import_format == "text":
            systems = [
                (name, self._read(path)) for name, path in map(split_named, options["system"])
            ]
        else:
            systems = [(Path(path).name, self._read(path)) for path in options["system"]]
        return CorpusInputs(
            source=self._read(options["source"]),
            references=references,
            systems=systems,
            file=self._read(options["file"]),
            docs=self._read(options["docs"]),
            source_lang=options["source_lang"],
            target_lang=options["target_lang"],
            encoding=options["encoding"],
            reference_systems=tuple(options["reference_system"]) or ("ref",),
            max_bytes=settings.CORPUS_UPLOAD_MAX_BYTES,
            max_segments=max_segments(),
        )

    def _read(self, path: str | None) -> InputFile | None:
        if path is None:
            return None
        file = Path(path)
        if not file.is_file():
            raise CommandError(NO_SUCH_FILE.format(path=path))
        size, limit = file.stat().st_size, settings.CORPUS_UPLOAD_MAX_BYTES
        if size > limit:
            raise CommandError(FILE_TOO_LARGE.format(path=path, size=size, limit=limit))
        # The cap of one form submission holds here too; checked before reading the next file.
        self._sizes.append(size)
        problem = total_size_problem(self._sizes)
        if problem is not None:
            raise CommandError(problem)
        try:
            file.open("rb").close()
        except OSError as error:
            raise CommandError(UNREADABLE.format(path=path, reason=error.strerror)) from None
        # Read by the parser: plain text streams it, the other formats read it whole.
        return InputFile(name=file.name, path=file.resolve())


def _label_and_path(value: str) -> tuple[str | None, str]:
    """``LABEL=FILE`` or ``FILE``; a path that exists as given is never split."""
    if "=" not in value or Path(value).exists():
        return None, value
    return split_named(value)
