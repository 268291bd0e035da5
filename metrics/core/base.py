"""The measure pipeline shared by every automatic measure.

Every measure follows one path (DESIGN.md, "The measure pipeline"):

    preprocess -> per-segment sufficient statistics -> aggregate (sum) -> score

* ``context(references)`` builds test-set-wide data once (NIST information weights,
  WNM weights, ...). It sees the references of the *whole* test set, so chunked runs
  over parts of a test set give the same numbers as one run over all of it.
* ``statistics(hypotheses, references, context)`` returns one row of numbers per
  segment (a 2-D float array). Rows never depend on other segments, so chunks can be
  computed anywhere and concatenated.
* ``aggregate(stats)`` turns the column sums (or, for measures that need it, the whole
  array) into a corpus :class:`Score`; ``sentence_scores(stats)`` gives one number per
  row. Bootstrap resampling and significance tests reuse the same rows.

References are given per segment: ``references[k]`` is the list of reference texts
of segment k (one or more). Scores are reported in the unit the command line prints:
percent for error rates, BLEU, chrF and TER; raw for NIST.
"""

from __future__ import annotations

import abc
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

from .preprocessing import preprocess, preprocess_many

if TYPE_CHECKING:
    # Only for annotations: importing numpy is a third of a one-off WER score's whole
    # process, and the error rates' command-line path (ErrorRateMeasure.whole_score) does
    # without it.
    import numpy as np
    import numpy.typing as npt

VERSION = "1.0"
"""Implementation version, part of every signature: bump it when a number changes."""

Statistics: TypeAlias = "npt.NDArray[np.float64]"


class MeasureError(ValueError):
    """Bad options or bad input for a measure; the message is shown to the user as is."""


def parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in {"true", "yes", "1", "on"}:
        return True
    if lowered in {"false", "no", "0", "off"}:
        return False
    raise MeasureError(f"expected true or false, got {text!r}")


def format_bool(value: bool) -> str:
    """``true`` or ``false``: how option values and report numbers spell a bool."""
    return "true" if value else "false"


MAX_NGRAM_ORDER = 20
"""Highest n-gram order of every order option (BLEU, NIST, chrF, m-PER, WNM). Published
settings stop far below it (BLEU 4, NIST 5, chrF 6 characters and 2 words), while statistics
columns, n-gram tables and memory grow with the order: 100000 took over 3.5 GB per system."""

NUMBER_TEXT_LIMIT = 100
"""Longest text accepted for a number option: far above any bound, and it keeps ``int()`` from
parsing thousands of digits (slow, and refused by Python beyond 4300)."""

SHOWN_VALUE_LIMIT = 40
"""Longest rendering of a refused value in a message: messages go to a web page or one line."""

WHOLE_SCORE_CHUNK = 2048
"""Segments per :meth:`Measure.statistics` call in :meth:`Measure.whole_score`: about a
megabyte of text, so its arrays stay in the tens of megabytes."""

FILE_ROLES = ("", "path", "content")

FILE_MAX_BYTES = 20 * 1024 * 1024
"""Largest file an option reads (``file="path"``) or holds (``file="content"``): WNM's corpus
statistics of a large corpus take a few megabytes, and the cap keeps a wrong file (or
``/dev/zero``) from filling the memory."""


def shown_value(value: Any) -> str:
    """``repr(value)``, shortened for messages."""
    try:
        text = repr(value)
    except ValueError:  # an int of more digits than Python converts to text
        text = "an integer of thousands of digits"
    if len(text) > SHOWN_VALUE_LIMIT:
        return text[: SHOWN_VALUE_LIMIT - 1] + "…"
    return text


def format_number(value: float) -> str:
    """A bound as messages and docs show it: ``20``, ``0.5``."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


@dataclass(frozen=True)
class Option:
    """One option of a measure.

    Args:
        default: value used when the option is not given.
        choices: allowed values (strings), or None for a free value of ``kind``.
        kind: ``str``, ``int``, ``float`` or ``bool``; strings from the command line are
            converted with it.
        help: one sentence for ``list`` and the docs.
        short: the key used in signatures (e.g. ``tok`` for ``tokenize``).
        minimum: smallest allowed number for int/float options.
        maximum: largest allowed number for int/float options. Every number option declares
            both (a test walks the registry): values reach the measures from web forms, and an
            unbounded order or size is a way to exhaust the server's memory.
        file: ``"path"`` when the value names a file on the machine that computes the measure
            (the command line only: web forms and sweeps refuse it), ``"content"`` when the
            value is a file's text (the web form offers an upload), ``""`` otherwise.
    """

    default: Any
    help: str
    choices: tuple[str, ...] | None = None
    kind: type = str
    short: str = ""
    minimum: float | None = None
    maximum: float | None = None
    file: str = ""

    def __post_init__(self) -> None:
        if self.file not in FILE_ROLES:
            raise ValueError(f"Option.file must be one of {FILE_ROLES}, not {self.file!r}")

    def convert(self, name: str, value: Any) -> Any:
        """Return ``value`` converted to the option's kind, or raise MeasureError."""
        if self.kind in (int, float):
            converted = self._number(name, value)
        elif self.kind is bool:
            converted = parse_bool(value) if isinstance(value, str) else bool(value)
        else:
            converted = str(value)
            if self.file == "content" and len(converted.encode("utf-8")) > FILE_MAX_BYTES:
                raise MeasureError(f"option {name}: larger than {FILE_MAX_BYTES:,} bytes")
        if self.choices is not None and converted not in self.choices:
            allowed = ", ".join(self.choices)
            raise MeasureError(f"option {name}: {shown_value(value)} is not one of {allowed}")
        if self.minimum is not None and converted < self.minimum:
            shown = shown_value(value)
            raise MeasureError(f"option {name}: {shown} is below {format_number(self.minimum)}")
        if self.maximum is not None and converted > self.maximum:
            shown = shown_value(value)
            raise MeasureError(f"option {name}: {shown} is above {format_number(self.maximum)}")
        return converted

    def _number(self, name: str, value: Any) -> int | float:
        """``value`` as a finite int or float; never lets OverflowError or a huge parse out."""
        expected = "a whole number" if self.kind is int else "a number"
        refused = MeasureError(f"option {name}: expected {expected}, got {shown_value(value)}")
        if isinstance(value, bool):  # an int subclass, but True is no order or weight
            raise refused
        if isinstance(value, str):
            value = value.strip()
            if len(value) > NUMBER_TEXT_LIMIT:
                raise refused
        try:
            if self.kind is int:
                if isinstance(value, numbers.Integral):
                    return int(value)
                if isinstance(value, str):
                    return int(value)
                number = float(value)
                if not number.is_integer():  # also false for NaN and ±inf
                    raise refused
                return int(number)
            number = float(value)
        except (TypeError, ValueError, OverflowError, ArithmeticError):
            raise refused from None
        if not math.isfinite(number):
            raise MeasureError(f"option {name}: expected a finite number, got {shown_value(value)}")
        return number

    def describe(self) -> dict[str, Any]:
        described = {
            "default": self.default,
            "type": self.kind.__name__,
            "choices": list(self.choices) if self.choices is not None else None,
            "help": self.help,
        }
        if self.kind in (int, float):
            described.update(minimum=self.minimum, maximum=self.maximum)
        if self.file:
            described["file"] = self.file
        return described


@dataclass(frozen=True)
class Signature:
    """Every parameter that changes a measure's number, sacreBLEU style.

    ``str(signature)`` gives ``name|nrefs:2|tok:13a|case:mixed|version:1.0``.
    """

    measure: str
    params: tuple[tuple[str, str], ...]

    def __str__(self) -> str:
        parts = [self.measure] + [f"{key}:{value}" for key, value in self.params]
        return "|".join(parts)

    def as_dict(self) -> dict[str, str]:
        return dict(self.params)


@dataclass
class Score:
    """A corpus-level result: the number, the signature and the parts behind it."""

    measure: str
    score: float
    signature: Signature
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "score": self.score,
            "signature": str(self.signature),
            "details": self.details,
        }


def format_signature_value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class Measure(abc.ABC):
    """Base class of every measure. Subclasses set ``name``, ``options`` and the hooks.

    Options are given as keyword arguments with the option names of the command line
    (``ref-length-rule``) or their Python spelling (``ref_length_rule``).
    """

    name: ClassVar[str]
    description: ClassVar[str] = ""
    options: ClassVar[Mapping[str, Option]] = {}
    higher_is_better: ClassVar[bool] = False
    needs_references: ClassVar[bool] = True
    """False for measures of the candidate text alone (``asw``): no ``--ref`` needed."""
    stat_names: ClassVar[tuple[str, ...]] = ()
    """Names of the statistics columns, for storage and reports (may be set per instance)."""
    targeted_references: ClassVar[bool] = False
    """True when a run's references are per (segment, system), from the post-editing campaign
    named by the option ``post-edits`` (``hter``), instead of the test set's per segment."""
    run_filled_options: ClassVar[frozenset[str]] = frozenset()
    """Options a run fills in from the database (the web form does not offer them; the
    command line that reproduces a run leaves them out)."""

    def __init__(self, **values: Any) -> None:
        given = {key.replace("_", "-"): value for key, value in values.items()}
        unknown = sorted(set(given) - set(self.options))
        if unknown:
            allowed = ", ".join(sorted(self.options)) or "none"
            raise MeasureError(
                f"measure {self.name}: unknown option {unknown[0]!r} (allowed: {allowed})"
            )
        self.values: dict[str, Any] = {
            key: option.convert(key, given[key]) if key in given else option.default
            for key, option in self.options.items()
        }
        self.validate()

    def option(self, key: str) -> Any:
        return self.values[key]

    def validate(self) -> None:  # noqa: B027 - an optional hook, empty by default
        """Check combinations of options; raise MeasureError. Default: nothing to check."""

    # -- the pipeline -------------------------------------------------------------

    def context(self, references: Sequence[Sequence[str]]) -> Any:
        """Test-set-wide data built from all references (default: none)."""
        return None

    @abc.abstractmethod
    def statistics(
        self,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str]],
        context: Any = None,
    ) -> Statistics:
        """Per-segment sufficient statistics, shape (len(hypotheses), n_stats)."""

    @abc.abstractmethod
    def aggregate(self, stats: Statistics, n_refs: int = 1) -> Score:
        """Corpus score from the statistics rows of one system."""

    @abc.abstractmethod
    def sentence_scores(self, stats: Statistics) -> npt.NDArray[np.float64]:
        """One score per row; NaN where the sentence score is undefined."""

    # -- conveniences built on the hooks ------------------------------------------

    def whole_score(
        self,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str]],
        n_refs: int,
        sentences: bool = False,
    ) -> tuple[Score, list[float] | None]:
        """The corpus score of a whole test set and, with ``sentences``, every sentence score
        (what the command line prints). Measures may override it with a faster path that gives
        the same numbers to the last bit (error rates: without numpy).

        The statistics are computed :data:`WHOLE_SCORE_CHUNK` segments at a time: rows never
        depend on other segments, and the arrays behind one call grow with its text (chrF of
        48,064 lines in one call peaked at 1.7 GB).
        """
        context = self.context(references)
        if len(hypotheses) <= WHOLE_SCORE_CHUNK:
            return self._scores(self.statistics(hypotheses, references, context), n_refs, sentences)
        import numpy as np

        parts = [
            self.statistics(
                hypotheses[start : start + WHOLE_SCORE_CHUNK],
                references[start : start + WHOLE_SCORE_CHUNK],
                context,
            )
            for start in range(0, len(hypotheses), WHOLE_SCORE_CHUNK)
        ]
        return self._scores(np.concatenate(parts), n_refs, sentences)

    def _scores(
        self, stats: Statistics, n_refs: int, sentences: bool
    ) -> tuple[Score, list[float] | None]:
        score = self.aggregate(stats, n_refs=n_refs)
        return score, [float(x) for x in self.sentence_scores(stats)] if sentences else None

    def corpus_score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> Score:
        check_lengths(hypotheses, references)
        stats = self.statistics(hypotheses, references, self.context(references))
        return self.aggregate(stats, n_refs=max((len(r) for r in references), default=0))

    def signature(self, n_refs: int) -> Signature:
        params = [("nrefs", str(n_refs))]
        for key, option in self.options.items():
            value = self.signature_value(key)
            if value is not None:
                params.append((option.short or key, value))
        params.append(("version", VERSION))
        return Signature(self.name, tuple(params))

    def signature_value(self, key: str) -> str | None:
        """How option ``key`` shows in the signature; None leaves it out. Default: its value."""
        return format_signature_value(self.values[key])

    def command_line_values(self) -> dict[str, Any]:
        """The option values a command line that reproduces this measure gives (default: all
        values; a measure holding a file's text names a file instead)."""
        return dict(self.values)

    @classmethod
    def unavailable_reason(cls, values: dict[str, Any] | None = None) -> str | None:
        """Why the measure cannot run here with ``values`` (default: its defaults), with what
        to install; None when it can. Only measures with optional dependencies override it."""
        return None

    @classmethod
    def describe(cls) -> dict[str, Any]:
        return {
            "name": cls.name,
            "description": cls.description,
            "higher_is_better": cls.higher_is_better,
            "needs_references": cls.needs_references,
            "options": {key: option.describe() for key, option in cls.options.items()},
        }


class TextMeasure(Measure):
    """A measure whose ``tokenize`` and ``lowercase`` options preprocess every text.

    Tokenize whole systems and test sets with :meth:`tokens_many` and :meth:`segment_tokens`:
    the batch tokenizers run each rule once over all uncached sentences, which is much faster
    than sentence by sentence, and the tokens are the same (``preprocess_many``).
    """

    def tokens(self, text: str) -> tuple[str, ...]:
        """The preprocessed tokens of one sentence under this measure's options."""
        return preprocess(text, self.values["tokenize"], self.values["lowercase"])

    def tokens_many(self, texts: Sequence[str]) -> list[tuple[str, ...]]:
        """:meth:`tokens` of many sentences, tokenized in one batch."""
        return preprocess_many(texts, self.values["tokenize"], self.values["lowercase"])

    def segment_tokens(self, segments: Sequence[Sequence[str]]) -> list[list[tuple[str, ...]]]:
        """Tokens of every text of every segment (e.g. the references), in one batch."""
        flat = self.tokens_many([text for segment in segments for text in segment])
        remaining = iter(flat)
        return [list(islice(remaining, len(segment))) for segment in segments]


def check_lengths(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> None:
    if len(hypotheses) != len(references):
        raise MeasureError(
            f"{len(hypotheses)} hypotheses but {len(references)} segments of references"
        )


def streams_to_segments(streams: Sequence[Sequence[str]]) -> list[list[str]]:
    """Turn reference streams (one list per reference file) into per-segment lists."""
    lengths = {len(stream) for stream in streams}
    if len(lengths) > 1:
        raise MeasureError(f"reference files differ in line count: {sorted(lengths)}")
    return [list(segment) for segment in zip(*streams, strict=True)]
