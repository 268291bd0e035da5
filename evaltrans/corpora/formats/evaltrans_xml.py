"""The EvalTrans database format: references and human-scored candidates per source sentence.

::

    <?xml version="1.0" encoding="utf-8" ?>
    <!DOCTYPE etdb SYSTEM "etdb.dtd">
    <database>
      <version_id>1.0</version_id>
      <levels class="fluency" count="6" gray="2" green="5" perfect="5" firstvalid="1"/>
      <levels class="isPerfect" count="2" gray="0" green="1" perfect="1" firstvalid="0"/>
      <source doc="d1" seg="1">
        <s_sent>Das ist gut.</s_sent>
        <targets>
          <tgt sys="human"><t_sent>That is good.</t_sent><eval class="isPerfect" val="1"/></tgt>
          <tgt sys="mt1"><t_sent>This is good.</t_sent><eval class="fluency" val="4" evaluator="e1"/></tgt>
        </targets>
      </source>
    </database>

Rules (the spec's §16, with its recommendations):

* The DOCTYPE is never validated nor fetched; entity declarations are refused (defusedxml).
* **References:** the *last* ``<levels>`` names the deciding class. A ``<tgt>`` with an ``<eval>``
  of that class whose ``val`` ≥ its ``perfect`` is a reference; every other ``<tgt>`` is a
  candidate. Without ``<levels>`` every target is a candidate.
* **Names:** a target's name is its ``sys``. Unnamed references are called ``ref-1``, ``ref-2`` …
  and unnamed candidates ``candidate-1``, ``candidate-2`` … by their position among the unnamed
  targets of the same kind *under that source* (so ``candidate-1`` does not identify one system
  across sentences).
* **Keying by source text:** ``<source>`` elements whose trimmed ``<s_sent>`` is equal are merged
  into one segment (the first one's position, ``doc`` and ``seg``) by uniting their targets; a
  target that repeats an earlier one of the same kind, name and text is the same target (its
  evaluations are added); the same name with a different text is an error.
* ``<s_sent>`` and ``<t_sent>`` texts are trimmed. Every ``<eval>`` is kept raw in
  ``SegmentData.evaluations`` (``aspect`` = ``class``, ``value`` = ``val``, every other
  attribute such as ``evaluator`` in ``attributes``); unknown classes are tolerated.
* Metadata: ``levels`` (list of attribute dicts, numeric ones as int), ``version_id`` if
  present, and under ``evaltrans_xml`` whatever else must survive a round trip: unknown
  attributes and child elements of ``<database>``, ``<source>`` and ``<tgt>`` (elements as XML
  text), keyed by segment position.

The languages are not in the file and are given by the caller.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from .base import CorpusData, CorpusFormatError, EvaluationData, InputFile, SegmentData
from .common import write_file
from .reading import NO_LIMITS, FieldLimits, is_blank
from .xmlsafe import (
    XmlDocument,
    attributes_xml,
    check_xml_text,
    describe,
    escape_text,
    parse_xml,
)

WRONG_ROOT = "the root element must be <database>, found <{tag}>"
MISSING_ATTRIBUTE = "<{tag}> has no {attribute} attribute"
NOT_AN_INTEGER = "<levels> attribute {attribute}={value!r} is not an integer"
DUPLICATE_LEVELS = "score class {name!r} is defined twice"
NOT_A_NUMBER = "<eval> val={value!r} is not a number"
ELEMENT_COUNT = "<{parent}> must contain exactly one <{tag}>, it has {count}"
EMPTY_TEXT = "<{tag}> is empty"
CONFLICTING_TARGET = (
    "{kind} {name!r} has two different texts for the source sentence {source!r} "
    "(duplicate <source> entries are merged)"
)
UNKNOWN_TARGET = "evaluation of {kind} {name!r}, which segment {seg!r} does not have"
CANDIDATE_LOOKS_PERFECT = (
    "candidate {name!r} of segment {seg!r} has {aspect}={value}, which would make it a reference"
)

DOCTYPE_HEADER = '<?xml version="1.0" encoding="utf-8" ?>\n<!DOCTYPE etdb SYSTEM "etdb.dtd">\n'
INTEGER_LEVEL_ATTRIBUTES = ("count", "gray", "green", "perfect", "firstvalid")
# Written when a corpus without levels (e.g. from plain text) is exported: the spec's
# recommended deciding class.
DEFAULT_LEVELS = {
    "class": "isPerfect",
    "count": 2,
    "gray": 0,
    "green": 1,
    "perfect": 1,
    "firstvalid": 0,
}
REFERENCE, CANDIDATE = "reference", "candidate"
_AUTO_PREFIX = {REFERENCE: "ref-", CANDIDATE: "candidate-"}
_KNOWN_SOURCE_ATTRIBUTES = ("doc", "seg")


@dataclass
class _Target:
    kind: str
    name: str
    text: str
    evaluations: list[EvaluationData] = field(default_factory=list)
    extras: dict = field(default_factory=dict)


@dataclass
class _Source:
    segment: SegmentData
    targets: dict[tuple[str, str], _Target] = field(default_factory=dict)
    unnamed: dict[str, int] = field(default_factory=lambda: {REFERENCE: 0, CANDIDATE: 0})
    auto_names: set[tuple[str, str]] = field(default_factory=set)
    extras: dict = field(default_factory=dict)


def parse_evaltrans_xml(
    *,
    file: InputFile,
    source_lang: str,
    target_lang: str,
    encoding: str | None = None,
    max_bytes: int | None = None,
    limits: FieldLimits = NO_LIMITS,
) -> CorpusData:
    """Read an EvalTrans database file.

    Args:
        file: the XML file.
        source_lang: language code of the source sentences (not stored in the file).
        target_lang: language code of the targets.
        encoding: overrides the encoding of the XML declaration (default: as declared, else UTF-8).
        max_bytes: size limit (``None``: no limit).
        limits: the longest names, ids and score classes that can be stored.

    Returns:
        The corpus, one segment per distinct source sentence, with ``levels`` in the metadata.

    Raises:
        CorpusFormatError: unsafe or malformed XML, missing or bad attributes, empty sentences,
            a name, id or class too long to store, or one target name with two texts under the
            same source sentence.
    """
    document = parse_xml(file, encoding=encoding, max_bytes=max_bytes)
    return _Reader(document, limits).read(source_lang, target_lang)


class _Reader:
    def __init__(self, document: XmlDocument, limits: FieldLimits) -> None:
        self.xml = document
        self.limits = limits
        self.levels: list[dict] = []
        self.sources: dict[str, _Source] = {}
        self.metadata: dict = {}
        self.extra_elements: list[str] = []

    def error(self, message: str, element: ET.Element) -> CorpusFormatError:
        return self.xml.error(message, element, _describe(element))

    def _check_length(self, kind: str, value: str, element: ET.Element) -> None:
        problem = self.limits.problem(kind, value)
        if problem is not None:
            raise self.error(problem, element)

    def read(self, source_lang: str, target_lang: str) -> CorpusData:
        root = self.xml.root
        if root.tag != "database":
            raise self.error(WRONG_ROOT.format(tag=root.tag), root)
        sources = []
        for child in root:
            if child.tag == "version_id":
                self.metadata["version_id"] = child.text or ""
            elif child.tag == "levels":
                self._levels(child)
            elif child.tag == "source":
                sources.append(child)
            else:
                self.extra_elements.append(_xml_text(child))
        # The deciding class is the last <levels>, even when sources come before it.
        for element in sources:
            self._source(element)
        return CorpusData(
            source_lang=source_lang,
            target_lang=target_lang,
            segments=[self._segment(source) for source in self.sources.values()],
            metadata=self._metadata(root),
        )

    def _metadata(self, root: ET.Element) -> dict:
        metadata = {"levels": self.levels, **self.metadata}
        extras: dict = {}
        if root.attrib:
            extras["database_attributes"] = dict(root.attrib)
        if self.extra_elements:
            extras["extra_elements"] = self.extra_elements
        segment_extras = {}
        for index, source in enumerate(self.sources.values()):
            entry = dict(source.extras)
            targets = {f"{t.kind}:{t.name}": t.extras for t in source.targets.values() if t.extras}
            if targets:
                entry["targets"] = targets
            if entry:
                segment_extras[str(index)] = entry
        if segment_extras:
            extras["segments"] = segment_extras
        if extras:
            metadata["evaltrans_xml"] = extras
        return metadata

    def _levels(self, element: ET.Element) -> None:
        levels: dict = {}
        for name, value in element.attrib.items():
            if name in INTEGER_LEVEL_ATTRIBUTES:
                try:
                    levels[name] = int(value)
                except ValueError:
                    raise self.error(
                        NOT_AN_INTEGER.format(attribute=name, value=value), element
                    ) from None
            else:
                levels[name] = value
        for required in ("class", "perfect"):
            if required not in levels or levels[required] == "":
                raise self.error(
                    MISSING_ATTRIBUTE.format(tag="levels", attribute=required), element
                )
        if any(known["class"] == levels["class"] for known in self.levels):
            raise self.error(DUPLICATE_LEVELS.format(name=levels["class"]), element)
        self.levels.append(levels)

    def _only_child(self, parent: ET.Element, tag: str) -> ET.Element:
        found = [child for child in parent if child.tag == tag]
        if len(found) != 1:
            raise self.error(
                ELEMENT_COUNT.format(parent=parent.tag, tag=tag, count=len(found)), parent
            )
        return found[0]

    def _sentence(self, parent: ET.Element, tag: str) -> str:
        element = self._only_child(parent, tag)
        text = "".join(element.itertext()).strip()
        if is_blank(text):
            raise self.error(EMPTY_TEXT.format(tag=tag), element)
        return text

    def _source(self, element: ET.Element) -> None:
        text = self._sentence(element, "s_sent")
        source = self.sources.get(text)
        if source is None:
            self._check_length("doc_id", element.attrib.get("doc", ""), element)
            self._check_length("seg_id", element.attrib.get("seg", ""), element)
            segment = SegmentData(
                source=text,
                doc_id=element.attrib.get("doc", ""),
                seg_id=element.attrib.get("seg", ""),
            )
            source = self.sources[text] = _Source(segment)
        unknown = {k: v for k, v in element.attrib.items() if k not in _KNOWN_SOURCE_ATTRIBUTES}
        if unknown:
            source.extras.setdefault("source_attributes", {}).update(unknown)
        for child in element:
            if child.tag == "targets":
                for target in child:
                    if target.tag == "tgt":
                        self._target(target, source)
                    else:
                        source.extras.setdefault("targets_elements", []).append(_xml_text(target))
            elif child.tag != "s_sent":
                source.extras.setdefault("source_elements", []).append(_xml_text(child))

    def _target(self, element: ET.Element, source: _Source) -> None:
        text = self._sentence(element, "t_sent")
        evaluations = [(self._evaluation(child), child) for child in element if child.tag == "eval"]
        kind = REFERENCE if self._is_reference([e for e, _ in evaluations]) else CANDIDATE
        name = element.attrib.get("sys", "")
        self._check_length("system" if kind == CANDIDATE else "reference", name, element)
        if is_blank(name):
            same = next(
                (
                    t
                    for t in source.targets.values()
                    if t.kind == kind and t.text == text and (kind, t.name) in source.auto_names
                ),
                None,
            )
            if same is not None:  # an unnamed repeat of an unnamed target: the same target
                name = same.name
            else:
                source.unnamed[kind] += 1
                name = f"{_AUTO_PREFIX[kind]}{source.unnamed[kind]}"
                source.auto_names.add((kind, name))
        target = source.targets.get((kind, name))
        if target is None:
            target = source.targets[(kind, name)] = _Target(kind, name, text)
        elif target.text != text:
            raise self.error(
                CONFLICTING_TARGET.format(kind=kind, name=name, source=source.segment.source[:60]),
                element,
            )
        for evaluation, _ in evaluations:
            evaluation.target_kind, evaluation.target_name = kind, name
            target.evaluations.append(evaluation)
        unknown = {k: v for k, v in element.attrib.items() if k != "sys"}
        if unknown:
            target.extras.setdefault("attributes", {}).update(unknown)
        for child in element:
            if child.tag not in ("t_sent", "eval"):
                target.extras.setdefault("elements", []).append(_xml_text(child))

    def _evaluation(self, element: ET.Element) -> EvaluationData:
        attributes = dict(element.attrib)
        aspect = attributes.pop("class", "")
        if is_blank(aspect):
            raise self.error(MISSING_ATTRIBUTE.format(tag="eval", attribute="class"), element)
        self._check_length("aspect", aspect, element)
        if "val" not in attributes:
            raise self.error(MISSING_ATTRIBUTE.format(tag="eval", attribute="val"), element)
        raw = attributes.pop("val")
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise self.error(NOT_A_NUMBER.format(value=raw), element)
        return EvaluationData(
            target_kind="", target_name="", aspect=aspect, value=value, attributes=attributes
        )

    def _is_reference(self, evaluations: list[EvaluationData]) -> bool:
        if not self.levels:
            return False
        deciding = self.levels[-1]
        return any(
            e.aspect == deciding["class"] and e.value >= deciding["perfect"] for e in evaluations
        )

    def _segment(self, source: _Source) -> SegmentData:
        segment = source.segment
        # References first, then candidates, each in order of appearance: the order the writer
        # uses, so evaluations compare equal after a round trip.
        for target in sorted(source.targets.values(), key=lambda t: t.kind != REFERENCE):
            mapping = segment.references if target.kind == REFERENCE else segment.candidates
            mapping[target.name] = target.text
            segment.evaluations.extend(target.evaluations)
        return segment


def _describe(element: ET.Element) -> str:
    return describe(element, ("sys", "class", "doc", "seg"))


def _xml_text(element: ET.Element) -> str:
    """An unknown element kept verbatim (as serialised XML) for the round trip."""
    element.tail = None
    return ET.tostring(element, encoding="unicode")


def write_evaltrans_xml(corpus: CorpusData, out_dir: Path) -> list[Path]:
    """Write ``database.xml`` (EvalTrans header and DOCTYPE exactly as in the spec) into ``out_dir``.

    A corpus without ``levels`` gets the recommended ``isPerfect`` class, and a reference
    without a deciding evaluation gets one (``val`` = ``perfect``) so that it is read back as a
    reference. Unnamed targets (``ref-N`` / ``candidate-N`` in sequence) are written without ``sys``.

    Returns:
        The one written path, in a list.

    Raises:
        CorpusFormatError: an evaluation names a target the segment lacks, a candidate carries a
            deciding score (it would come back as a reference), or a text XML cannot carry.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "database.xml"
    levels = corpus.metadata.get("levels")
    if levels is None or (not levels and any(s.references for s in corpus.segments)):
        levels = [DEFAULT_LEVELS]  # references need a deciding class to be read back as such
    extras = corpus.metadata.get("evaltrans_xml", {})
    lines = [f"<database{attributes_xml(extras.get('database_attributes', {}))}>"]
    if "version_id" in corpus.metadata:
        lines.append(f"  <version_id>{escape_text(corpus.metadata['version_id'])}</version_id>")
    for level in levels:
        lines.append(f"  <levels{attributes_xml({k: str(v) for k, v in level.items()})}/>")
    lines.extend("  " + element for element in extras.get("extra_elements", []))
    segment_extras = extras.get("segments", {})
    for index, segment in enumerate(corpus.segments):
        deciding = levels[-1] if levels else None
        lines.extend(_source_xml(segment, segment_extras.get(str(index), {}), deciding, path.name))
    lines.append("</database>")
    return [write_file(path, DOCTYPE_HEADER + "\n".join(lines) + "\n")]


def _source_xml(
    segment: SegmentData, extras: dict, deciding: dict | None, out_name: str
) -> list[str]:
    seg = segment.seg_id or segment.source[:40]
    attributes = {}
    if segment.doc_id:
        attributes["doc"] = segment.doc_id
    if segment.seg_id:
        attributes["seg"] = segment.seg_id
    attributes.update(extras.get("source_attributes", {}))
    check_xml_text(segment.source, out_name, f"<source seg={seg!r}>")
    lines = [
        f"  <source{attributes_xml(attributes)}>",
        f"    <s_sent>{escape_text(segment.source)}</s_sent>",
    ]
    lines.extend("    " + element for element in extras.get("source_elements", []))

    evaluations: dict[tuple[str, str], list[EvaluationData]] = {}
    for evaluation in segment.evaluations:
        key = (evaluation.target_kind, evaluation.target_name)
        mapping = segment.references if evaluation.target_kind == REFERENCE else segment.candidates
        if evaluation.target_name not in mapping:
            raise CorpusFormatError(
                out_name,
                UNKNOWN_TARGET.format(
                    kind=evaluation.target_kind, name=evaluation.target_name, seg=seg
                ),
            )
        evaluations.setdefault(key, []).append(evaluation)

    targets = []
    for kind, mapping in ((REFERENCE, segment.references), (CANDIDATE, segment.candidates)):
        unnamed = 0
        for name, text in mapping.items():
            own = list(evaluations.get((kind, name), []))
            decides = [
                e
                for e in own
                if deciding and e.aspect == deciding["class"] and e.value >= deciding["perfect"]
            ]
            if kind == CANDIDATE and decides:
                raise CorpusFormatError(
                    out_name,
                    CANDIDATE_LOOKS_PERFECT.format(
                        name=name, seg=seg, aspect=decides[0].aspect, value=decides[0].value
                    ),
                )
            if kind == REFERENCE and not decides:
                own.append(
                    EvaluationData(kind, name, deciding["class"], float(deciding["perfect"]))
                )
            sys_attribute = {}
            if name == f"{_AUTO_PREFIX[kind]}{unnamed + 1}":
                unnamed += 1  # written unnamed: the reader gives it this very name again
            else:
                sys_attribute["sys"] = name
            target_extras = extras.get("targets", {}).get(f"{kind}:{name}", {})
            check_xml_text(text, out_name, f"<tgt sys={name!r}> of segment {seg!r}")
            targets.append(
                _target_xml(
                    text,
                    {**sys_attribute, **target_extras.get("attributes", {})},
                    own,
                    target_extras.get("elements", []),
                )
            )
    targets_elements = extras.get("targets_elements", [])
    if targets or targets_elements:
        lines.append("    <targets>")
        for target in targets:
            lines.extend("      " + line for line in target)
        lines.extend("      " + element for element in targets_elements)
        lines.append("    </targets>")
    lines.append("  </source>")
    return lines


def _target_xml(
    text: str, attributes: dict[str, str], evaluations: list[EvaluationData], elements: list[str]
) -> list[str]:
    lines = [f"<tgt{attributes_xml(attributes)}>", f"  <t_sent>{escape_text(text)}</t_sent>"]
    for evaluation in evaluations:
        eval_attributes = {
            "class": evaluation.aspect,
            "val": _number(evaluation.value),
            **evaluation.attributes,
        }
        lines.append(f"  <eval{attributes_xml(eval_attributes)}/>")
    lines.extend("  " + element for element in elements)
    lines.append("</tgt>")
    return lines


def _number(value: float) -> str:
    """``3`` rather than ``3.0``; other values in their shortest exact form."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))
