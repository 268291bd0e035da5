"""python manage.py import_judgments FORMAT [FILE] --name NAME [--test-set TESTSET]
[--judge-stats FILE] (see docs/human-scores.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaltrans.corpora.formats.base import CorpusFormatError, InputFile
from evaltrans.corpora.models import TestSet
from evaltrans.corpora.parsing import total_size_problem
from judging.humanscores.services import (
    FILE_REQUIRED,
    IMPORT_FORMATS,
    JudgmentImportError,
    judgmentset_import_file,
    judgmentset_import_test_set,
)

NO_SUCH_FILE = "{path}: no such file"
UNREADABLE = "{path}: cannot be read ({reason})"
FILE_TOO_LARGE = (
    "{path}: {size:,} bytes is above the limit of {limit:,} bytes (CORPUS_UPLOAD_MAX_BYTES)"
)
NO_SUCH_TEST_SET = "no test set named {name!r}"
_VERSIONED = re.compile(r"^(?P<name>.+) v(?P<version>\d+)$")


class Command(BaseCommand):
    help = "Import human judgments made elsewhere as a judgment set."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("format", choices=IMPORT_FORMATS)
        parser.add_argument(
            "file",
            nargs="?",
            help="The judgments file; evaltrans-xml may omit it and read --test-set's <eval>s.",
        )
        parser.add_argument("--name", required=True, help="Name of the new judgment set.")
        parser.add_argument(
            "--test-set",
            help="Attach to this test set (NAME for its latest version, or 'NAME vN'); the "
            "file's systems, segment ids and sources are checked against it, and where they "
            "do not match the set is kept stand-alone with a note saying why.",
        )
        parser.add_argument("--judge-stats", help="wmt-da-csv: the judges' mean/sd file.")

    def handle(self, *args: Any, **options: Any) -> None:
        import_format = options["format"]
        try:
            test_set = _test_set(options["test_set"])
            if options["file"] is None:
                if import_format != "evaltrans-xml" or test_set is None:
                    raise CommandError(FILE_REQUIRED.format(format=import_format))
                result = judgmentset_import_test_set(test_set=test_set, name=options["name"])
            else:
                paths = [options["file"]]
                if options["judge_stats"]:
                    paths.append(options["judge_stats"])
                file, *judge_stats = _read_all(paths)
                result = judgmentset_import_file(
                    import_format=import_format,
                    file=file,
                    name=options["name"],
                    test_set=test_set,
                    judge_stats=judge_stats[0] if judge_stats else None,
                )
        except (CorpusFormatError, JudgmentImportError) as error:
            raise CommandError(str(error)) from None
        # A set kept stand-alone although a test set was asked for: the note says why.
        style = self.style.WARNING if result.attachment_refused else self.style.SUCCESS
        self.stdout.write(style(result.summary))


def _test_set(name: str | None) -> TestSet | None:
    if not name:
        return None
    found = TestSet.objects.filter(name=name).order_by("-version").first()
    match = _VERSIONED.match(name)
    if found is None and match:
        found = TestSet.objects.filter(name=match["name"], version=int(match["version"])).first()
    if found is None:
        raise CommandError(NO_SUCH_TEST_SET.format(name=name))
    return found


def _read_all(paths: list[str]) -> list[InputFile]:
    """Read the files after checking each size and, as for one form submission, their total."""
    files, limit = [Path(path) for path in paths], settings.CORPUS_UPLOAD_MAX_BYTES
    for path, file in zip(paths, files, strict=True):
        if not file.is_file():
            raise CommandError(NO_SUCH_FILE.format(path=path))
        size = file.stat().st_size
        if size > limit:
            raise CommandError(FILE_TOO_LARGE.format(path=path, size=size, limit=limit))
    problem = total_size_problem(file.stat().st_size for file in files)
    if problem is not None:
        raise CommandError(problem)
    read = []
    for path, file in zip(paths, files, strict=True):
        try:
            read.append(InputFile(name=file.name, data=file.read_bytes()))
        except OSError as error:
            raise CommandError(UNREADABLE.format(path=path, reason=error.strerror)) from None
    return read
