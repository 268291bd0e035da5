"""The EDPM measure: options, tiers, signature, statistics (match, T_h, T_r) per segment."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ..base import Measure, MeasureError, Option, Score, Statistics
from . import parsing
from .fragments import (
    KINDS,
    TREE_KINDS,
    Bag,
    ParsedSentence,
    ab_labels,
    dpm_counts,
    expected_bag,
    f_from_counts,
    reattach_prepositions,
)

MAX_N = parsing.BEAM_WIDTH
MULTI_REF_RULES = ("best", "max-count")
TIER_BEAM = "edpm-beam"
TIER_GREEDY = "dpm-1best"
TIER_WORDS = "dpm-words"


class EDPM(Measure):
    """Expected dependency-pair match (Kahn, Ostendorf & Roark 2009) and the DPM family;
    higher is better, in percent."""

    name: ClassVar[str] = "edpm"
    description: ClassVar[str] = (
        "EDPM (Kahn et al. 2009): F over expected bags of words, bigrams and dependency "
        "fragments of spaCy parses; kinds=1g,2g needs no parser."
    )
    higher_is_better: ClassVar[bool] = True
    stat_names: ClassVar[tuple[str, ...]] = ("match", "hyp_total", "ref_total")
    options: ClassVar[dict[str, Option]] = {
        "kinds": Option(
            default="1g,2g,dl,lh",
            short="kinds",
            help="Fragment kinds, comma-separated: 1g, 2g, dl, lh, dlh.",
        ),
        "n": Option(
            default=50,
            kind=int,
            minimum=1,
            maximum=MAX_N,
            short="n",
            help="Parses per sentence: 1 is the greedy parse (DPM), 2–50 the best distinct "
            "trees of a beam of 50 (EDPM).",
        ),
        "gamma": Option(
            default=0.25,
            kind=float,
            minimum=0.0,
            maximum=1.0,
            short="gamma",
            help="Flattening γ of parse probabilities: 0 uniform, 1 the beam's own.",
        ),
        "labels": Option(
            default="spacy",
            choices=("spacy", "ab-like"),
            short="lab",
            help="Arc labels: spaCy's (nsubj, dobj, …) or A/B-like phrase labels (S/NP).",
        ),
        "reattach-prepositions": Option(
            default=True,
            kind=bool,
            short="pp",
            help="Give prepositional phrases nominal heads, as EDPM's head rules do.",
        ),
        "lowercase": Option(
            default=False, kind=bool, short="lc", help="Fold case of the words of fragments."
        ),
        "model": Option(
            default=parsing.DEFAULT_MODEL,
            choices=tuple(parsing.MODEL_PACKAGES),
            short="model",
            help="spaCy English pipeline that parses.",
        ),
        "model-version": Option(
            default=parsing.DEFAULT_MODEL_VERSION,
            choices=(parsing.DEFAULT_MODEL_VERSION,),
            short="mver",
            help="Version of the pipeline (refused when another is installed).",
        ),
        "multi-ref": Option(
            default="best",
            choices=MULTI_REF_RULES,
            short="mref",
            help="Several references: the best-scoring one, or their max-count union.",
        ),
    }

    def validate(self) -> None:
        given = [part.strip() for part in str(self.values["kinds"]).split(",") if part.strip()]
        unknown = [part for part in given if part not in KINDS]
        if unknown or not given:
            raise MeasureError(
                f"option kinds: {self.values['kinds']!r} is not a comma list of {', '.join(KINDS)}"
            )
        self.kinds = tuple(kind for kind in KINDS if kind in given)
        self.values["kinds"] = ",".join(self.kinds)
        self.needs_parser = bool(TREE_KINDS & set(self.kinds))
        self.beam = self.needs_parser and self.values["n"] > 1
        reason = self.unavailable_reason(self.values)
        if reason is not None:
            raise MeasureError(reason)

    @classmethod
    def unavailable_reason(cls, values: dict[str, Any] | None = None) -> str | None:
        """Why the measure cannot run with ``values`` (default options) here, or None; checks
        installed packages without importing spaCy."""
        values = values or {key: option.default for key, option in cls.options.items()}
        kinds = set(str(values["kinds"]).split(","))
        model = values["model"] if TREE_KINDS & kinds else None
        return parsing.unavailable_reason(model, values["model-version"])

    @classmethod
    def describe(cls) -> dict[str, Any]:
        described = super().describe()
        reason = cls.unavailable_reason()
        described["available"] = reason is None
        if reason is not None:
            described["unavailable"] = reason
        return described

    @property
    def tier(self) -> str:
        """Which member of the family computes the number: never "EDPM" for one parse."""
        if not self.needs_parser:
            return TIER_WORDS
        return TIER_BEAM if self.beam else TIER_GREEDY

    def signature_value(self, key: str) -> str | None:
        if key in ("gamma",) and not self.beam:
            return None  # one parse: no weights to flatten
        if key in ("n", "labels", "reattach-prepositions", "model", "model-version"):
            if not self.needs_parser:
                return None
        return super().signature_value(key)

    def signature(self, n_refs: int) -> Any:
        base = super().signature(n_refs)
        params = list(base.params)
        tokenizer = "model" if self.needs_parser else "blank-en"
        params[1:1] = [
            ("tier", self.tier),
            ("tok", tokenizer),
            ("spacy", parsing.spacy_version()),
        ]
        if self.beam:
            params.insert(4, ("beam", str(parsing.BEAM_WIDTH)))
        return type(base)(self.name, tuple(params))

    def label(self) -> str:
        """The family member's name, as the paper writes it (EDPM only for its own setting)."""
        kinds = ",".join(self.kinds)
        if self.beam:
            if self.kinds == ("1g", "2g", "dl", "lh"):
                return f"EDPM (n={self.values['n']}, γ={self.values['gamma']:g})"
            return f"DPM{{{kinds}}} n={self.values['n']} γ={self.values['gamma']:g}"
        return f"DPM{{{kinds}}}" + (" n=1" if self.needs_parser else "")

    # -- the pipeline -------------------------------------------------------------------

    def context(self, references: Sequence[Sequence[str]]) -> dict[str, Bag]:
        """Expected bags of every reference of the test set, parsed once in one batch."""
        return self.bags([text for segment in references for text in segment])

    def bags(self, texts: Sequence[str]) -> dict[str, Bag]:
        """Expected bag of each text (keyed by the text as given)."""
        normal = {text: parsing.normalise(text) for text in texts}
        unique = list(dict.fromkeys(normal.values()))
        if not self.needs_parser:
            tokens = parsing.tokenize_many(unique)
            by_normal = {text: self._word_bag(tokens[text]) for text in unique}
        else:
            parsed = parsing.parse_many(
                unique, self.values["model"], self.values["model-version"], self.beam
            )
            by_normal = {text: self._tree_bag(parsed[text]) for text in unique}
        return {text: by_normal[normal[text]] for text in texts}

    def _words(self, tokens: Sequence[str]) -> list[str]:
        return [t.lower() for t in tokens] if self.values["lowercase"] else list(tokens)

    def _word_bag(self, tokens: Sequence[str]) -> Bag:
        return expected_bag(self._words(tokens), [], [], self.kinds, 0.0)

    def _tree_bag(self, sentence: ParsedSentence) -> Bag:
        parses = sentence.parses[: self.values["n"]]
        trees = []
        for parse in parses:
            heads, labels = parse.heads, parse.labels
            if self.values["reattach-prepositions"]:
                heads, labels = reattach_prepositions(heads, labels)
            if self.values["labels"] == "ab-like":
                labels = ab_labels(heads, labels, sentence.tags, sentence.pos)
            trees.append((heads, labels))
        probs = [parse.prob for parse in parses]
        total = sum(probs)
        probs = [p / total for p in probs] if total > 0 else probs
        return expected_bag(
            self._words(sentence.tokens), trees, probs, self.kinds, self.values["gamma"]
        )

    def statistics(
        self,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str]],
        context: Any = None,
    ) -> Statistics:
        known: dict[str, Bag] = dict(context or {})
        wanted = [t for t in [*hypotheses, *(r for s in references for r in s)] if t not in known]
        known.update(self.bags(wanted))
        stats = np.zeros((len(hypotheses), 3))
        for row, (hypothesis, refs) in enumerate(zip(hypotheses, references, strict=True)):
            if refs:
                stats[row] = self._segment(known[hypothesis], [known[r] for r in refs])
            else:
                stats[row] = (0.0, sum(known[hypothesis].values()), 0.0)
        return stats

    def _segment(self, hypothesis: Bag, references: Sequence[Bag]) -> tuple[float, float, float]:
        if len(references) == 1:
            return dpm_counts(hypothesis, references[0])
        if self.values["multi-ref"] == "max-count":
            pooled: Bag = {}
            for bag in references:
                for key, value in bag.items():
                    pooled[key] = max(pooled.get(key, 0.0), value)
            match, hyp_total, _ = dpm_counts(hypothesis, pooled)
            # Recall against the references' mean size: the union is larger than any of them.
            return match, hyp_total, sum(sum(b.values()) for b in references) / len(references)
        best: tuple[float, float, float] | None = None
        best_f = -1.0
        for bag in references:  # the first reference wins ties
            counts = dpm_counts(hypothesis, bag)
            score = f_from_counts(*counts)
            score = -0.5 if score != score else score  # NaN (both empty) below any F
            if score > best_f:
                best, best_f = counts, score
        assert best is not None
        return best

    def aggregate(self, stats: Statistics, n_refs: int = 1) -> Score:
        match, hyp_total, ref_total = (float(x) for x in stats.reshape(-1, 3).sum(axis=0))
        score = f_from_counts(match, hyp_total, ref_total)
        return Score(
            self.name,
            0.0 if score != score else 100.0 * score,
            self.signature(n_refs),
            {
                "statistics": {"match": match, "hyp_total": hyp_total, "ref_total": ref_total},
                "precision": 100.0 * match / hyp_total if hyp_total else 0.0,
                "recall": 100.0 * match / ref_total if ref_total else 0.0,
                "label": self.label(),
                "tier": self.tier,
            },
        )

    def sentence_scores(self, stats: Statistics) -> npt.NDArray[np.float64]:
        total = stats[:, 1] + stats[:, 2]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, 200.0 * stats[:, 0] / total, np.nan)
