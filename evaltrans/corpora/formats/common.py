"""Checks and writer helpers shared by several formats (names, file names, documents)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from .base import CorpusData, CorpusFormatError, SegmentData

EMPTY_NAME = "empty {what}"
DUPLICATE_REFERENCE = "reference label {name!r} is given twice"
DUPLICATE_SYSTEM = "system name {name!r} is given twice"
SYSTEM_IS_REFERENCE = "system name {name!r} is also a reference label"
SPLIT_DOCUMENT = "document {doc!r} is split: its segments must follow one another"
DUPLICATE_SEGMENT_ID = "segment id {seg!r} appears twice in document {doc!r}"
MISSING_TEXT = "{kind} {name!r} has no translation of segment {seg!r} of document {doc!r}"

# Writers use these when a corpus (e.g. imported from plain text) has no document ids.
DEFAULT_DOC_ID = "doc1"


def check_names(labels: list[tuple[str, str]], systems: list[tuple[str, str]]) -> None:
    """Refuse empty or repeated reference labels and system names, and a system named like a reference.

    Args:
        labels: ``(reference label, name of the file it came from)`` pairs.
        systems: ``(system name, name of the file it came from)`` pairs.

    Raises:
        CorpusFormatError: naming the file that brought the offending name.
    """
    _check_unique(labels, "reference label", DUPLICATE_REFERENCE)
    _check_unique(systems, "system name", DUPLICATE_SYSTEM)
    label_names = {label for label, _ in labels}
    for name, file_name in systems:
        if name in label_names:
            raise CorpusFormatError(file_name, SYSTEM_IS_REFERENCE.format(name=name))


def _check_unique(names: list[tuple[str, str]], what: str, message: str) -> None:
    seen: set[str] = set()
    for name, file_name in names:
        if not name.strip():
            raise CorpusFormatError(file_name, EMPTY_NAME.format(what=what))
        if name in seen:
            raise CorpusFormatError(file_name, message.format(name=name))
        seen.add(name)


def safe_filename(name: str, taken: set[str], prefix: str = "", suffix: str = "") -> str:
    """``prefix + name + suffix`` with ``name`` percent-encoded (reversible), unique in ``taken``.

    ``taken`` holds lower-cased names already used, so two names differing only in case do not
    overwrite each other on case-insensitive file systems; a clash gets a ``~2``, ``~3`` suffix
    (the manifest or the file's own header is what names the system, not the file name).
    """
    base = quote(name, safe="")
    prefix, suffix = quote(prefix, safe=""), quote(suffix, safe="")
    if not prefix and base.startswith("."):
        base = "%2E" + base[1:]  # no hidden files, no "." or ".."
    candidate, counter = prefix + base + suffix, 1
    while candidate.lower() in taken:
        counter += 1
        candidate = f"{prefix}{base}~{counter}{suffix}"
    taken.add(candidate.lower())
    return candidate


def group_documents(
    corpus: CorpusData, out_name: str
) -> list[tuple[str, list[tuple[str, SegmentData]]]]:
    """Split the segments into documents for formats that nest segments in documents.

    Missing document ids become ``doc1``; missing segment ids become the 1-based position in the
    document.

    Raises:
        CorpusFormatError: a document's segments are not contiguous, or a segment id repeats.
    """
    documents: list[tuple[str, list[tuple[str, SegmentData]]]] = []
    finished: set[str] = set()
    for segment in corpus.segments:
        doc_id = segment.doc_id or DEFAULT_DOC_ID
        if not documents or documents[-1][0] != doc_id:
            if doc_id in finished:
                raise CorpusFormatError(out_name, SPLIT_DOCUMENT.format(doc=doc_id))
            finished.add(doc_id)
            documents.append((doc_id, []))
        segments = documents[-1][1]
        seg_id = segment.seg_id or str(len(segments) + 1)
        if any(seg_id == known for known, _ in segments):
            raise CorpusFormatError(out_name, DUPLICATE_SEGMENT_ID.format(seg=seg_id, doc=doc_id))
        segments.append((seg_id, segment))
    return documents


def write_file(path: Path, text: str) -> Path:
    """Write UTF-8 text with ``\\n`` line ends and return the path."""
    path.write_text(text, encoding="utf-8", newline="\n")
    return path
