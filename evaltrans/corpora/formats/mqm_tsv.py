"""Google's MQM TSV (WMT expert re-annotations): one row per rated error, texts in every row.

Header (the ``comment`` column is optional; the zh-en files lack it)::

    system  doc  doc_id  seg_id  rater  source  target  category  severity  comment

Only the *texts* are imported here (the ratings are imported elsewhere): the error-span marks
``<v>`` and ``</v>`` are removed from source and target, each ``seg_id`` becomes one segment
(document = ``doc``), and each (system, seg_id) must have one distinct target text over all its
rows. Segments are ordered by ``seg_id`` (numerically when all ids are numbers). Fields are split
on tabs only (no CSV quoting: the files contain bare quotes).

References: systems named in ``reference_systems`` (default ``("ref",)``) become references
labelled by that name; every other system, including a second human translation such as
``refB`` in the zh-en TED data, stays a system unless it is listed. A listed name that is not in
the file is an error (so a typo cannot silently drop the reference); pass ``()`` for a file
without references. Every system must have a row for every segment.

Export (:func:`write_mqm_tsv`) writes the texts only: one ``No-error`` row per system (and per
reference, under its label) and segment, ``doc_id`` = position in the document. It does not
round-trip ratings.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from .base import CorpusData, CorpusFormatError, InputFile, SegmentData
from .common import check_names, safe_filename, write_file
from .reading import DEFAULT_ENCODING, NO_LIMITS, FieldLimits, is_blank, read_lines

COLUMNS = (
    "system",
    "doc",
    "doc_id",
    "seg_id",
    "rater",
    "source",
    "target",
    "category",
    "severity",
    "comment",
)
OPTIONAL_COLUMNS = ("comment",)

UNKNOWN_COLUMN = "unknown column {name!r}; the MQM columns are: {columns}"
MISSING_COLUMN = "missing column {name!r}"
DUPLICATE_COLUMN = "column {name!r} appears twice"
FIELD_COUNT = "{count} tab-separated fields, but the header has {expected}"
EMPTY_FIELD = "empty {column}"
SOURCE_CONFLICT = "segment {seg!r} has a different source text than on line {line}"
DOC_CONFLICT = "segment {seg!r} is in document {doc!r} here but in {other!r} on line {line}"
TARGET_CONFLICT = (
    "system {system!r} has a different target text for segment {seg!r} than on line {line}"
)
UNKNOWN_REFERENCE = (
    "reference system {name!r} is not in the file (its systems: {systems}); "
    "choose the reference with --reference-system"
)
MISSING_ROW = "system {system!r} has no row for segment {seg!r}"
UNWRITABLE = "segment {seg!r}: the {what} contains a tab or line break, which TSV cannot hold"

_SPAN_MARK = re.compile(r"</?v>")


def strip_marks(text: str) -> str:
    """Remove the ``<v>`` / ``</v>`` error-span marks (also unbalanced ones)."""
    return _SPAN_MARK.sub("", text)


def parse_mqm_tsv(
    *,
    file: InputFile,
    source_lang: str,
    target_lang: str,
    reference_systems: tuple[str, ...] = ("ref",),
    encoding: str = DEFAULT_ENCODING,
    max_bytes: int | None = None,
    limits: FieldLimits = NO_LIMITS,
) -> CorpusData:
    """Read the texts of an MQM TSV file.

    Args:
        file: the TSV file.
        source_lang: language code of the sources (not in the file).
        target_lang: language code of the targets.
        reference_systems: system names that are references (labelled by their name).
        encoding: encoding of the file.
        max_bytes: size limit (``None``: no limit).
        limits: the longest names and ids that can be stored.

    Returns:
        The corpus, segments ordered by ``seg_id``.

    Raises:
        CorpusFormatError: unknown / missing columns, a row with the wrong number of fields or
            an empty field, a name or id too long to store, conflicting texts, a missing
            reference system, or a system without a row for some segment.
    """
    lines = read_lines(file, encoding=encoding, max_bytes=max_bytes)
    header = _header(file, lines[0])
    sources: dict[str, tuple[str, str, int]] = {}  # seg_id -> (source, doc, line)
    targets: dict[str, dict[str, tuple[str, int]]] = {}  # system -> seg_id -> (target, line)

    for number, line in enumerate(lines[1:], start=2):
        row = _row(file, header, line, number, limits)
        seg, system = row["seg_id"], row["system"]
        source, target = strip_marks(row["source"]), strip_marks(row["target"])
        known = sources.setdefault(seg, (source, row["doc"], number))
        if known[0] != source:
            raise CorpusFormatError(
                file.name, SOURCE_CONFLICT.format(seg=seg, line=known[2]), line=number
            )
        if known[1] != row["doc"]:
            raise CorpusFormatError(
                file.name,
                DOC_CONFLICT.format(seg=seg, doc=row["doc"], other=known[1], line=known[2]),
                line=number,
            )
        previous = targets.setdefault(system, {}).setdefault(seg, (target, number))
        if previous[0] != target:
            raise CorpusFormatError(
                file.name,
                TARGET_CONFLICT.format(system=system, seg=seg, line=previous[1]),
                line=number,
            )

    for name in reference_systems:
        if name not in targets:
            raise CorpusFormatError(
                file.name, UNKNOWN_REFERENCE.format(name=name, systems=", ".join(targets) or "none")
            )
    for system, texts in targets.items():
        for seg in sources:
            if seg not in texts:
                raise CorpusFormatError(file.name, MISSING_ROW.format(system=system, seg=seg))

    labels = list(reference_systems)
    systems = [name for name in targets if name not in reference_systems]
    check_names(
        [(name, file.name) for name in labels], [(name, file.name) for name in systems], limits
    )
    segments = [
        SegmentData(
            source=source,
            doc_id=doc,
            seg_id=seg,
            references={name: targets[name][seg][0] for name in labels},
            candidates={name: targets[name][seg][0] for name in systems},
        )
        for seg, (source, doc, _line) in _ordered(sources).items()
    ]
    return CorpusData(source_lang=source_lang, target_lang=target_lang, segments=segments)


def _header(file: InputFile, line: str) -> list[str]:
    names = line.split("\t")
    for name in names:
        if name not in COLUMNS:
            raise CorpusFormatError(
                file.name, UNKNOWN_COLUMN.format(name=name, columns=" ".join(COLUMNS)), line=1
            )
        if names.count(name) > 1:
            raise CorpusFormatError(file.name, DUPLICATE_COLUMN.format(name=name), line=1)
    for name in COLUMNS:
        if name not in names and name not in OPTIONAL_COLUMNS:
            raise CorpusFormatError(file.name, MISSING_COLUMN.format(name=name), line=1)
    return names


_LIMITED_COLUMNS = {"system": "system", "doc": "doc_id", "seg_id": "seg_id"}


def _row(
    file: InputFile, header: list[str], line: str, number: int, limits: FieldLimits
) -> dict[str, str]:
    fields = line.split("\t")
    if len(fields) != len(header):
        raise CorpusFormatError(
            file.name, FIELD_COUNT.format(count=len(fields), expected=len(header)), line=number
        )
    row = dict(zip(header, fields, strict=True))
    for column in ("system", "seg_id", "doc", "source", "target"):
        if is_blank(strip_marks(row[column])):
            raise CorpusFormatError(file.name, EMPTY_FIELD.format(column=column), line=number)
    for column, kind in _LIMITED_COLUMNS.items():
        limits.check(kind, row[column], file.name, number)
    return row


def _ordered(sources: dict[str, tuple[str, str, int]]) -> dict[str, tuple[str, str, int]]:
    """Numeric seg_id order when every id is a number, else order of first appearance."""
    if all(seg.isdecimal() for seg in sources):
        return dict(sorted(sources.items(), key=lambda item: _numeric(item[0])))
    return sources


def _numeric(digits: str) -> tuple[int, str]:
    """A sort key giving the numeric order of decimal digits of any script and any length
    (``int()`` refuses ids above 4300 digits; ``str.isdigit`` also admits ``²``, which it
    cannot read at all)."""
    value = "".join(str(unicodedata.decimal(char)) for char in digits).lstrip("0")
    return len(value), value


def write_mqm_tsv(corpus: CorpusData, out_dir: Path) -> list[Path]:
    """Write the texts as ``<name or "corpus">.<src>-<tgt>.mqm.tsv`` with ``No-error`` rows.

    Returns:
        The one written path, in a list.

    Raises:
        CorpusFormatError: a text contains a tab or line break.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / safe_filename(
        corpus.name or "corpus", set(), suffix=f".{corpus.source_lang}-{corpus.target_lang}.mqm.tsv"
    )
    rows = ["\t".join(COLUMNS)]
    position_in_doc: dict[str, int] = {}
    for index, segment in enumerate(corpus.segments, start=1):
        seg = segment.seg_id or str(index)
        doc = segment.doc_id or "doc1"
        position_in_doc[doc] = position_in_doc.get(doc, 0) + 1
        texts = {**segment.references, **segment.candidates}
        for system, target in texts.items():
            fields = [
                system,
                doc,
                str(position_in_doc[doc]),
                seg,
                "",
                segment.source,
                target,
                "No-error",
                "No-error",
                "",
            ]
            _check_writable(path, seg, fields)
            rows.append("\t".join(fields))
    return [write_file(path, "\n".join(rows) + "\n")]


def _check_writable(path: Path, seg: str, fields: list[str]) -> None:
    for what, value in zip(COLUMNS, fields, strict=True):
        if "\t" in value or "\n" in value or "\r" in value:
            raise CorpusFormatError(path.name, UNWRITABLE.format(seg=seg, what=what))
