"""WMT XML (WMT 2021 on): sources, references and system outputs in one file.

::

    <dataset id="wmttest2022">
      <collection id="general">
        <doc id="doc1" origlang="cs">
          <src lang="cs"><p><seg id="1">Dobrý den</seg></p></src>
          <ref lang="en" translator="A"><p><seg id="1">Hello</seg></p></ref>
          <hyp lang="en" system="Online-B"><p><seg id="1">Good day</seg></p></hyp>
        </doc>
      </collection>
    </dataset>

Parsed with defusedxml (entity declarations and external entities are refused). ``<collection>``
is optional. Every document has one ``<src>``; references are labelled by ``translator`` (else
``ref``); systems are named by ``system``. Segment texts are kept exactly (no trimming).

Rules: every ``<ref>`` and ``<hyp>`` has exactly the segment ids of its document's ``<src>``;
every system translates every document; an empty ``<seg>`` in a ``<ref>`` means "no reference
for this segment" (WMT leaves reference segments empty where none was made), while an empty
source or system segment is an error; a document may have no ``<ref>``.

Metadata: ``set_id`` (dataset id), ``documents`` (document id → attributes other than ``id``,
e.g. ``origlang``, ``domain``, ``testsuite``) and ``wmt_xml`` with ``collections`` (document id
→ collection id) and ``paragraphs`` (document id → number of segments per ``<p>``, only for
documents with more than one paragraph); other attributes of ``<src>``, ``<ref>`` and ``<hyp>``
are not kept.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from .base import CorpusData, CorpusFormatError, InputFile, SegmentData
from .common import MISSING_TEXT, group_documents, safe_filename, write_file
from .reading import NO_LIMITS, FieldLimits, is_blank
from .xmlsafe import (
    XmlDocument,
    attributes_xml,
    check_xml_text,
    describe,
    escape_text,
    parse_xml,
)

WRONG_ROOT = "the root element must be <dataset>, found <{tag}>"
UNEXPECTED_ELEMENT = "unexpected element <{tag}> in <{parent}>"
MISSING_ATTRIBUTE = "<{tag}> has no {attribute} attribute"
DUPLICATE_DOC = "document {doc!r} appears twice"
SOURCE_COUNT = "document {doc!r} must have exactly one <src>, it has {count}"
NO_SEGMENTS = "document {doc!r} has no segments"
DUPLICATE_SEG = "segment id {seg!r} appears twice"
EMPTY_SEGMENT = "segment {seg!r} of document {doc!r} is empty"
MISSING_SEG = "segment {seg!r} of document {doc!r} is missing (the <src> has it)"
EXTRA_SEG = "segment {seg!r} of document {doc!r} is not in the <src>"
DUPLICATE_TRANSLATION = "{what} {name!r} appears twice in document {doc!r}"
MISSING_SYSTEM = "system {name!r} has no translation of document {doc!r}"
SYSTEM_IS_REFERENCE = "system name {name!r} is also a reference label"
LANGUAGE_MISMATCH = "{what} language {found!r} differs from {expected!r} used before"
NO_TRANSLATIONS = "the file has no <ref> and no <hyp>, so its target language is unknown"

DEFAULT_REFERENCE_LABEL = "ref"


def parse_wmt_xml(
    *,
    file: InputFile,
    encoding: str | None = None,
    max_bytes: int | None = None,
    limits: FieldLimits = NO_LIMITS,
) -> CorpusData:
    """Read a WMT XML file (WMT 2021 onwards).

    Args:
        file: the XML file.
        encoding: overrides the encoding of the XML declaration (default: as declared, else UTF-8).
        max_bytes: size limit (``None``: no limit).
        limits: the longest names, ids and language codes that can be stored.

    Returns:
        The corpus in document order, with the metadata described in the module docstring.

    Raises:
        CorpusFormatError: unsafe or malformed XML, wrong structure, a name or id too long to
            store, or a reference or system whose segments differ from the source's (naming
            document and segment).
    """
    document = parse_xml(file, encoding=encoding, max_bytes=max_bytes)
    return _Reader(document, limits).read()


class _Reader:
    """Builds the corpus while walking the tree; remembers languages and names seen so far."""

    def __init__(self, document: XmlDocument, limits: FieldLimits) -> None:
        self.xml = document
        self.limits = limits
        self.languages: dict[str, str] = {}
        self.labels: dict[str, ET.Element] = {}
        self.systems: dict[str, ET.Element] = {}
        self.segments: list[SegmentData] = []
        self.documents: dict[str, dict[str, str]] = {}
        self.collections: dict[str, str] = {}
        self.paragraphs: dict[str, list[int]] = {}
        self.system_docs: dict[str, set[str]] = {}
        self.doc_elements: dict[str, ET.Element] = {}
        self.names_in_doc: set[tuple[str, str]] = set()

    def error(self, message: str, element: ET.Element, where: str = "") -> CorpusFormatError:
        return self.xml.error(message, element, where or _describe(element))

    def read(self) -> CorpusData:
        root = self.xml.root
        if root.tag != "dataset":
            raise self.error(WRONG_ROOT.format(tag=root.tag), root)
        for child in root:
            if child.tag == "collection":
                collection_id = self._attribute(child, "id")
                for doc in child:
                    self._expect(doc, "doc", "collection")
                    self._document(doc, collection_id)
            else:
                self._expect(child, "doc", "dataset")
                self._document(child, None)
        self._check_systems_cover_documents()
        if "target" not in self.languages:
            raise CorpusFormatError(self.xml.file.name, NO_TRANSLATIONS)
        return CorpusData(
            source_lang=self.languages["source"],
            target_lang=self.languages["target"],
            segments=self.segments,
            metadata=self._metadata(root),
        )

    def _metadata(self, root: ET.Element) -> dict:
        metadata: dict = {"documents": self.documents}
        if "id" in root.attrib:
            metadata["set_id"] = root.attrib["id"]
        extra = {}
        if self.collections:
            extra["collections"] = self.collections
        if self.paragraphs:
            extra["paragraphs"] = self.paragraphs
        if extra:
            metadata["wmt_xml"] = extra
        return metadata

    def _expect(self, element: ET.Element, tag: str, parent: str) -> None:
        if element.tag != tag:
            raise self.error(UNEXPECTED_ELEMENT.format(tag=element.tag, parent=parent), element)

    def _attribute(self, element: ET.Element, name: str, kind: str | None = None) -> str:
        """The stripped attribute; ``kind`` names its limit (a field of FieldLimits)."""
        value = element.attrib.get(name, "").strip()
        if is_blank(value):
            raise self.error(MISSING_ATTRIBUTE.format(tag=element.tag, attribute=name), element)
        self._check_length(kind, value, element)
        return value

    def _check_length(self, kind: str | None, value: str, element: ET.Element) -> None:
        problem = self.limits.problem(kind, value) if kind else None
        if problem is not None:
            raise self.error(problem, element)

    def _language(self, element: ET.Element, role: str) -> None:
        found = self._attribute(element, "lang", "language")
        expected = self.languages.setdefault(role, found)
        if found != expected:
            raise self.error(
                LANGUAGE_MISMATCH.format(what=role, found=found, expected=expected), element
            )

    def _document(self, doc: ET.Element, collection_id: str | None) -> None:
        doc_id = self._attribute(doc, "id", "doc_id")
        if doc_id in self.documents:
            raise self.error(DUPLICATE_DOC.format(doc=doc_id), doc)
        self.documents[doc_id] = {k: v for k, v in doc.attrib.items() if k != "id"}
        self.doc_elements[doc_id] = doc
        self.names_in_doc = set()
        if collection_id is not None:
            self.collections[doc_id] = collection_id

        sources = [child for child in doc if child.tag == "src"]
        if len(sources) != 1:
            raise self.error(SOURCE_COUNT.format(doc=doc_id, count=len(sources)), doc)
        self._language(sources[0], "source")
        source_segments, paragraphs = self._segments(sources[0], doc_id)
        if not source_segments:
            raise self.error(NO_SEGMENTS.format(doc=doc_id), doc)
        if len(paragraphs) > 1:
            self.paragraphs[doc_id] = paragraphs
        segments = {
            seg_id: SegmentData(
                source=self._required_text(text, seg, doc_id, seg_id), doc_id=doc_id, seg_id=seg_id
            )
            for seg_id, (text, seg) in source_segments.items()
        }
        for child in doc:
            if child.tag == "ref":
                self._translation(child, doc_id, source_segments, segments, is_reference=True)
            elif child.tag == "hyp":
                self._translation(child, doc_id, source_segments, segments, is_reference=False)
            elif child.tag != "src":
                raise self.error(UNEXPECTED_ELEMENT.format(tag=child.tag, parent="doc"), child)
        self.segments.extend(segments.values())

    def _required_text(self, text: str, seg: ET.Element, doc_id: str, seg_id: str) -> str:
        if is_blank(text):
            raise self.error(EMPTY_SEGMENT.format(seg=seg_id, doc=doc_id), seg)
        return text

    def _translation(
        self, element, doc_id, source_segments, segments, *, is_reference: bool
    ) -> None:
        """Add one ``<ref>`` or ``<hyp>`` to the document's segments."""
        self._language(element, "target")
        if is_reference:
            name = element.attrib.get("translator", "").strip()
            name = DEFAULT_REFERENCE_LABEL if is_blank(name) else name
            self._check_length("reference", name, element)
            what, known, other = "reference", self.labels, self.systems
        else:
            name = self._attribute(element, "system", "system")
            what, known, other = "system", self.systems, self.labels
        if name in other:
            raise self.error(SYSTEM_IS_REFERENCE.format(name=name), element)
        known.setdefault(name, element)
        if (what, name) in self.names_in_doc:
            raise self.error(
                DUPLICATE_TRANSLATION.format(what=what, name=name, doc=doc_id), element
            )
        self.names_in_doc.add((what, name))
        if not is_reference:
            self.system_docs.setdefault(name, set()).add(doc_id)

        translated, _ = self._segments(element, doc_id)
        for seg_id, (text, seg) in translated.items():
            if seg_id not in source_segments:
                raise self.error(EXTRA_SEG.format(seg=seg_id, doc=doc_id), seg)
            if is_reference:
                if not is_blank(text):  # an empty reference segment: no reference here
                    segments[seg_id].references[name] = text
            else:
                segments[seg_id].candidates[name] = self._required_text(text, seg, doc_id, seg_id)
        for seg_id in source_segments:
            if seg_id not in translated:
                raise self.error(MISSING_SEG.format(seg=seg_id, doc=doc_id), element)

    def _segments(
        self, element: ET.Element, doc_id: str
    ) -> tuple[dict[str, tuple[str, ET.Element]], list[int]]:
        """Segments (id -> (text, element)) of a src/ref/hyp and the segment count of each <p>."""
        segments: dict[str, tuple[str, ET.Element]] = {}
        paragraphs: list[int] = []
        for child in element:
            if child.tag == "p":
                before = len(segments)
                for seg in child:
                    self._expect(seg, "seg", "p")
                    self._segment(seg, segments)
                paragraphs.append(len(segments) - before)
            elif child.tag == "seg":  # tolerated: segments without a paragraph
                self._segment(child, segments)
            else:
                raise self.error(
                    UNEXPECTED_ELEMENT.format(tag=child.tag, parent=element.tag), child
                )
        return segments, paragraphs

    def _segment(self, seg: ET.Element, segments: dict[str, tuple[str, ET.Element]]) -> None:
        seg_id = self._attribute(seg, "id", "seg_id")
        if seg_id in segments:
            raise self.error(DUPLICATE_SEG.format(seg=seg_id), seg)
        for child in seg:
            raise self.error(UNEXPECTED_ELEMENT.format(tag=child.tag, parent="seg"), child)
        segments[seg_id] = (seg.text or "", seg)

    def _check_systems_cover_documents(self) -> None:
        for name, covered in self.system_docs.items():
            for doc_id, doc in self.doc_elements.items():
                if doc_id not in covered:
                    raise self.error(MISSING_SYSTEM.format(name=name, doc=doc_id), doc)


def _describe(element: ET.Element) -> str:
    """``<tag key="value">`` with the identifying attribute, for error locations."""
    return describe(element, ("id", "system", "translator", "lang"))


def write_wmt_xml(corpus: CorpusData, out_dir: Path) -> list[Path]:
    """Write ``<set id>.<src>-<tgt>.xml`` (or ``corpus.<src>-<tgt>.xml``) into ``out_dir``.

    References missing for some segments of a document are written as empty segments (which
    :func:`parse_wmt_xml` reads as "no reference"); a reference absent from a whole document is
    left out of it.

    Returns:
        The one written path, in a list.

    Raises:
        CorpusFormatError: a system lacks a segment, a text holds a character XML cannot carry,
            or documents are split.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    set_id = corpus.metadata.get("set_id") or corpus.name
    path = out_dir / _file_name(set_id or "corpus", corpus)
    documents = group_documents(corpus, path.name)
    extra = corpus.metadata.get("wmt_xml", {})
    collections = extra.get("collections", {})

    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        f"<dataset{attributes_xml({'id': set_id} if set_id else {})}>",
    ]
    current_collection: str | None = None
    for doc_id, segments in documents:
        collection = collections.get(doc_id)
        if collection != current_collection:
            if current_collection is not None:
                lines.append("  </collection>")
            if collection is not None:
                lines.append(f"  <collection{attributes_xml({'id': collection})}>")
            current_collection = collection
        indent = "    " if collection is not None else "  "
        lines.extend(indent + line for line in _document_xml(corpus, path.name, doc_id, segments))
    if current_collection is not None:
        lines.append("  </collection>")
    lines.append("</dataset>")
    return [write_file(path, "\n".join(lines) + "\n")]


def _file_name(set_id: str, corpus: CorpusData) -> str:
    return safe_filename(set_id, set(), suffix=f".{corpus.source_lang}-{corpus.target_lang}.xml")


def _document_xml(corpus: CorpusData, out_name: str, doc_id: str, segments) -> list[str]:
    attributes = {"id": doc_id, **corpus.metadata.get("documents", {}).get(doc_id, {})}
    sizes = corpus.metadata.get("wmt_xml", {}).get("paragraphs", {}).get(doc_id)
    if not sizes or sum(sizes) != len(segments):
        sizes = [len(segments)]
    lines = [f"<doc{attributes_xml(attributes)}>"]

    def block(tag: str, block_attributes: dict[str, str], texts: list[str]) -> None:
        lines.append(f"  <{tag}{attributes_xml(block_attributes)}>")
        position = 0
        for size in sizes:
            lines.append("    <p>")
            for (seg_id, _), text in zip(
                segments[position : position + size], texts[position : position + size], strict=True
            ):
                where = f'<doc id="{doc_id}">, <{tag}>, <seg id="{seg_id}">'
                check_xml_text(text, out_name, where)
                lines.append(
                    f"      <seg{attributes_xml({'id': seg_id})}>{escape_text(text)}</seg>"
                )
            lines.append("    </p>")
            position += size
        lines.append(f"  </{tag}>")

    block("src", {"lang": corpus.source_lang}, [segment.source for _, segment in segments])
    for label in corpus.reference_labels:
        texts = [segment.references.get(label, "") for _, segment in segments]
        if any(texts):
            block("ref", {"lang": corpus.target_lang, "translator": label}, texts)
    for system in corpus.system_names:
        texts = []
        for seg_id, segment in segments:
            if system not in segment.candidates:
                raise CorpusFormatError(
                    out_name,
                    MISSING_TEXT.format(kind="system", name=system, seg=seg_id, doc=doc_id),
                )
            texts.append(segment.candidates[system])
        block("hyp", {"lang": corpus.target_lang, "system": system}, texts)
    lines.append("</doc>")
    return lines
