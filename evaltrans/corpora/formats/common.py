"""Checks and writer helpers shared by several formats (names, file names, documents)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from urllib.parse import quote

from .base import CorpusData, CorpusFormatError, SegmentData
from .reading import NO_LIMITS, FieldLimits, is_blank, unstorable_problem

EMPTY_NAME = "empty {what}"
BAD_NAME = "{what} {name!r}: {problem}"
DUPLICATE_REFERENCE = "reference label {name!r} is given twice"
DUPLICATE_SYSTEM = "system name {name!r} is given twice"
SYSTEM_IS_REFERENCE = "system name {name!r} is also a reference label"
SPLIT_DOCUMENT = "document {doc!r} is split: its segments must follow one another"
DUPLICATE_SEGMENT_ID = "segment id {seg!r} appears twice in document {doc!r}"
MISSING_TEXT = "{kind} {name!r} has no translation of segment {seg!r} of document {doc!r}"

# Writers use these when a corpus (e.g. imported from plain text) has no document ids.
DEFAULT_DOC_ID = "doc1"
# Room below the 255 bytes of common file systems for a "~N" clash suffix.
MAX_FILE_NAME = 200


def check_names(
    labels: list[tuple[str, str]],
    systems: list[tuple[str, str]],
    limits: FieldLimits = NO_LIMITS,
) -> None:
    """Refuse empty, too long or repeated reference labels and system names, and a system named
    like a reference.

    Args:
        labels: ``(reference label, name of the file it came from)`` pairs.
        systems: ``(system name, name of the file it came from)`` pairs.
        limits: the longest names that can be stored.

    Raises:
        CorpusFormatError: naming the file that brought the offending name.
    """
    _check_unique(labels, "reference label", DUPLICATE_REFERENCE, limits, "reference")
    _check_unique(systems, "system name", DUPLICATE_SYSTEM, limits, "system")
    label_names = {label for label, _ in labels}
    for name, file_name in systems:
        if name in label_names:
            raise CorpusFormatError(file_name, SYSTEM_IS_REFERENCE.format(name=name))


def _check_unique(
    names: list[tuple[str, str]], what: str, message: str, limits: FieldLimits, kind: str
) -> None:
    seen: set[str] = set()
    for name, file_name in names:
        if is_blank(name):
            raise CorpusFormatError(file_name, EMPTY_NAME.format(what=what))
        # Names typed on the command line or in the form were never decoded from a file.
        problem = unstorable_problem(name)
        if problem is not None:
            raise CorpusFormatError(
                file_name, BAD_NAME.format(what=what, name=name, problem=problem)
            )
        limits.check(kind, name, file_name)
        if name in seen:
            raise CorpusFormatError(file_name, message.format(name=name))
        seen.add(name)


def safe_filename(name: str, taken: set[str], prefix: str = "", suffix: str = "") -> str:
    """``prefix + name + suffix`` with ``name`` percent-encoded, unique in ``taken``.

    ``taken`` holds lower-cased names already used, so two names differing only in case do not
    overwrite each other on case-insensitive file systems; a clash gets a ``~2``, ``~3`` suffix
    (the manifest or the file's own header is what names the system, not the file name). A name
    whose encoding would pass :data:`MAX_FILE_NAME` characters (file systems take 255 bytes) is
    cut and ends in a hash of the whole name, so that two long names still differ.
    """
    base = quote(name, safe="")
    prefix, suffix = quote(prefix, safe=""), quote(suffix, safe="")
    if len(prefix) + len(base) + len(suffix) > MAX_FILE_NAME:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        room = MAX_FILE_NAME - len(prefix) - len(suffix) - len(digest) - 1
        pieces, used = [], 0
        for char in name:
            piece = quote(char, safe="")
            if used + len(piece) > room:
                break
            pieces.append(piece)
            used += len(piece)
        base = "".join(pieces) + "-" + digest
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
