"""Plain text: one sentence per line, one file per source / reference / system output.

Line k of every file belongs to segment k (segment ids are the line numbers "1", "2", …).
An optional docs file gives the document id of each line. Sentences are kept exactly as
written apart from the line end (``\\n`` or ``\\r\\n``); an empty or whitespace-only line is an
error, because it almost always means a missing or shifted sentence.

Export (:func:`write_text`) writes, into one directory::

    source.<src>            the source sentences
    ref.<label>.<tgt>       one file per reference
    <system>.<tgt>          one file per system output
    docs.txt                document ids, one per line (only if the corpus has any)
    manifest.json           languages and which file holds what

Labels and system names are percent-encoded in file names (``/`` → ``%2F``) so every name is
a safe file name; ``manifest.json`` is the authority for names, and :func:`read_text_export`
reads such a directory back with :func:`parse_text`.
"""

from __future__ import annotations

import io
import json
from collections.abc import Generator, Iterator
from pathlib import Path

from .base import CorpusData, CorpusFormatError, InputFile, SegmentData, StreamedSegments
from .common import check_names, safe_filename, write_file
from .reading import DEFAULT_ENCODING, NO_LIMITS, FieldLimits, is_blank, read_lines

LINE_COUNT_MISMATCH = "{file} has {count} lines, but the source file {source} has {source_count}"
MIXED_DOC_IDS = "some segments have a document id and others not"
NOT_ONE_LINE = "segment {seg!r}: the {what} {name!r} contains a line break"
BLANK_TEXT = "segment {seg!r}: the {what} {name!r} is empty"
MISSING_IN_SEGMENT = (
    "segment {seg!r} has no {what} {name!r}; the text format needs one on every line"
)
BAD_MANIFEST = "bad manifest: {reason}"

MANIFEST_NAME = "manifest.json"
DOCS_NAME = "docs.txt"
MANIFEST_FORMAT = "evaltrans-text"


def parse_text(
    *,
    source: InputFile,
    references: list[tuple[str, InputFile]],
    systems: list[tuple[str, InputFile]],
    source_lang: str,
    target_lang: str,
    docs: InputFile | None = None,
    encoding: str = DEFAULT_ENCODING,
    max_bytes: int | None = None,
    limits: FieldLimits = NO_LIMITS,
    streamed: bool = False,
) -> CorpusData:
    """Read a source file, labelled reference files and named system output files.

    Every file is checked whole, one file at a time (so at most one file is in memory); the
    segments are then read line by line from all files together. With ``streamed`` the corpus
    holds :class:`StreamedSegments` that read the files again each time they are iterated (the
    files must stay in place and unchanged until the corpus is stored): what the import uses,
    so its memory does not grow with the corpus. Otherwise the segments are read once into a
    list.

    Args:
        source: the source sentences, one per line.
        references: ``(label, file)`` pairs, e.g. ``[("A", ref_a), ("B", ref_b)]``.
        systems: ``(system name, file)`` pairs.
        source_lang: language code of the source, e.g. ``"cs"``.
        target_lang: language code of references and systems.
        docs: optional file with one document id per line.
        encoding: encoding of every file.
        max_bytes: size limit per file (``None``: no limit).
        limits: the longest names and document ids that can be stored.
        streamed: return segments read from the files on demand instead of a list.

    Returns:
        The corpus; segment ids are line numbers, document ids come from ``docs`` (else "").

    Raises:
        CorpusFormatError: unreadable, empty or too large file, an empty line, different line
            counts, a repeated / clashing label or system name, or a name or document id too
            long to store.
    """
    check_names(
        [(label, file.name) for label, file in references],
        [(name, file.name) for name, file in systems],
        limits,
    )
    count = len(read_lines(source.loaded(), encoding=encoding, max_bytes=max_bytes))

    def check_matching(file: InputFile) -> list[str]:
        lines = read_lines(file.loaded(), encoding=encoding, max_bytes=max_bytes)
        if len(lines) != count:
            raise CorpusFormatError(
                file.name,
                LINE_COUNT_MISMATCH.format(
                    file=file.name, count=len(lines), source=source.name, source_count=count
                ),
            )
        return lines

    for _, file in [*references, *systems]:
        check_matching(file)
    if docs is not None:
        for number, doc_id in enumerate(check_matching(docs), start=1):
            limits.check("doc_id", doc_id.strip(), docs.name, number)

    columns = [source, *(file for _, file in references), *(file for _, file in systems)]
    if docs is not None:
        columns.append(docs)
    labels = [label for label, _ in references]
    names = [name for name, _ in systems]

    def segments() -> Iterator[SegmentData]:
        readers = [_stream_lines(file, encoding) for file in columns]
        try:
            for index, row in enumerate(zip(*readers, strict=True)):
                texts = iter(row)
                text = next(texts)
                yield SegmentData(
                    source=text,
                    seg_id=str(index + 1),
                    references={label: next(texts) for label in labels},
                    candidates={name: next(texts) for name in names},
                    doc_id=next(texts).strip() if docs is not None else "",
                )
        finally:
            for reader in readers:
                reader.close()

    lazy = StreamedSegments(segments, count, labels, names)
    return CorpusData(
        source_lang=source_lang,
        target_lang=target_lang,
        segments=lazy if streamed else list(lazy),
    )


def _stream_lines(file: InputFile, encoding: str) -> Generator[str, None, None]:
    """The lines of a file already checked by ``read_lines``, split as it splits them (on LF
    only, one CR before it dropped, a leading byte-order mark removed), read in blocks."""
    with io.TextIOWrapper(file.open(), encoding=encoding, newline="\n") as stream:
        first = True
        for line in stream:
            if first:
                line = line.removeprefix("\ufeff")
                first = False
            yield line.removesuffix("\n").removesuffix("\r")


def write_text(corpus: CorpusData, out_dir: Path) -> list[Path]:
    """Write ``corpus`` as text files plus ``manifest.json`` into ``out_dir`` (created if needed).

    Returns:
        The written paths, the manifest last.

    Raises:
        CorpusFormatError: a sentence contains a line break or is empty, a segment lacks a
            reference or system, or only some segments have document ids.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    taken = {MANIFEST_NAME, DOCS_NAME}
    source_name = safe_filename("source", taken, suffix=f".{corpus.source_lang}")
    manifest: dict = {
        "format": MANIFEST_FORMAT,
        "source_lang": corpus.source_lang,
        "target_lang": corpus.target_lang,
        "source": source_name,
        "references": [],
        "systems": [],
        "docs": None,
    }
    paths = [_write_column(out_dir / source_name, corpus, "source", "", lambda s: s.source)]

    for label in corpus.reference_labels:
        name = safe_filename(label, taken, prefix="ref.", suffix=f".{corpus.target_lang}")
        paths.append(
            _write_column(out_dir / name, corpus, "reference", label, _getter("references", label))
        )
        manifest["references"].append({"label": label, "file": name})
    for system in corpus.system_names:
        name = safe_filename(system, taken, suffix=f".{corpus.target_lang}")
        paths.append(
            _write_column(
                out_dir / name, corpus, "system output", system, _getter("candidates", system)
            )
        )
        manifest["systems"].append({"name": system, "file": name})

    doc_ids = [segment.doc_id for segment in corpus.segments]
    if any(doc_ids):
        if not all(doc_id.strip() for doc_id in doc_ids):
            raise CorpusFormatError(DOCS_NAME, MIXED_DOC_IDS)
        paths.append(
            _write_column(out_dir / DOCS_NAME, corpus, "document id", "", lambda s: s.doc_id)
        )
        manifest["docs"] = DOCS_NAME

    text = json.dumps(manifest, ensure_ascii=False, indent=2) + "\n"
    paths.append(write_file(out_dir / MANIFEST_NAME, text))
    return paths


def _getter(attribute: str, key: str):
    """A function reading ``segment.<attribute>[key]`` (None when absent)."""
    return lambda segment: getattr(segment, attribute).get(key)


def _write_column(path: Path, corpus: CorpusData, what: str, name: str, get) -> Path:
    """Write one line per segment; refuse what the reader could not read back unchanged."""
    lines = []
    for position, segment in enumerate(corpus.segments, start=1):
        seg = segment.seg_id or str(position)
        value = get(segment)
        if value is None:
            raise CorpusFormatError(
                path.name, MISSING_IN_SEGMENT.format(seg=seg, what=what, name=name)
            )
        # The reader refuses a CR without LF anywhere (classic Mac OS line ends).
        if "\n" in value or "\r" in value:
            raise CorpusFormatError(path.name, NOT_ONE_LINE.format(seg=seg, what=what, name=name))
        if is_blank(value):
            raise CorpusFormatError(path.name, BLANK_TEXT.format(seg=seg, what=what, name=name))
        lines.append(value + "\n")
    if lines and lines[0].startswith("\ufeff"):
        # The reader drops one leading U+FEFF as a byte-order mark: write one so the text keeps its own.
        lines[0] = "\ufeff" + lines[0]
    return write_file(path, "".join(lines))


def read_text_export(
    directory: Path, *, encoding: str = DEFAULT_ENCODING, max_bytes: int | None = None
) -> CorpusData:
    """Read a directory written by :func:`write_text` (its ``manifest.json``) with :func:`parse_text`.

    Raises:
        CorpusFormatError: the manifest is missing or malformed, or a file is invalid.
    """
    directory = Path(directory)
    manifest_path = directory / MANIFEST_NAME
    manifest = _load_manifest(manifest_path)

    def load(file_name: object) -> InputFile:
        if (
            not isinstance(file_name, str)
            or file_name in ("", ".", "..")
            or Path(file_name).name != file_name
        ):
            # Only plain names: a manifest must not reach outside its directory.
            raise CorpusFormatError(
                manifest_path.name, BAD_MANIFEST.format(reason=f"bad file name {file_name!r}")
            )
        path = directory / file_name
        if not path.is_file():
            raise CorpusFormatError(
                manifest_path.name, BAD_MANIFEST.format(reason=f"missing file {file_name!r}")
            )
        return InputFile(file_name, path.read_bytes())

    try:
        references = [(entry["label"], load(entry["file"])) for entry in manifest["references"]]
        systems = [(entry["name"], load(entry["file"])) for entry in manifest["systems"]]
        docs = load(manifest["docs"]) if manifest.get("docs") else None
        return parse_text(
            source=load(manifest["source"]),
            references=references,
            systems=systems,
            source_lang=manifest["source_lang"],
            target_lang=manifest["target_lang"],
            docs=docs,
            encoding=encoding,
            max_bytes=max_bytes,
        )
    except (KeyError, TypeError) as error:
        raise CorpusFormatError(
            manifest_path.name, BAD_MANIFEST.format(reason=f"missing or wrong entry {error}")
        ) from None


def _load_manifest(path: Path) -> dict:
    if not path.is_file():
        raise CorpusFormatError(path.name, BAD_MANIFEST.format(reason="file not found"))
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        raise CorpusFormatError(path.name, BAD_MANIFEST.format(reason=str(error))) from None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise CorpusFormatError(
            path.name, BAD_MANIFEST.format(reason=f"not an {MANIFEST_FORMAT} manifest")
        )
    return manifest
