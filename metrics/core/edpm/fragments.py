"""The parser-free core of EDPM: parses in, expected bags of fragments and F-measure counts out.

Kahn, Ostendorf & Roark, *Automatic Syntactic MT Evaluation with Expected Dependency Pair
Match* (spec edpm-and-protocols §A2–A6, pseudo-code §A14.5). Nothing here imports spaCy: a
parse is plain data (:class:`Parse`, :class:`ParsedSentence`), so the tests build parses by
hand and the numbers of §A14.6 are checked without a model.

Decisions the paper leaves open (§A13), taken here and in docs/measures.md:

* fractional expected counts match by ``min`` (clipped bag intersection), and
  F = 2·match / (T_h + T_r), so document and corpus scores are sums of (match, T_h, T_r);
* the root word's arc goes to ``<root>`` with label ``root`` (every tree gives every word
  exactly one arc, hence T = 4·|s| − 1 for EDPM's fragment set);
* fragments are typed (``("dl", word, label)``), so a unigram never matches an arc.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

ROOT_WORD = "<root>"
ROOT_LABEL = "root"
KINDS = ("1g", "2g", "dl", "lh", "dlh")
"""Fragment types in canonical order (§A4)."""
TREE_KINDS = frozenset({"dl", "lh", "dlh"})
PROJECTIVE_DELIMITER = "||"
"""spaCy's pseudo-projective label joint (``dobj||xcomp``): beam parses come undecoded."""

Bag = dict[tuple[str, ...], float]


@dataclass(frozen=True)
class Parse:
    """One dependency tree: ``heads[i]`` is word i's head index (−1 for a root), ``labels[i]``
    the label of its arc, ``prob`` its probability in the n-best list (renormalised later)."""

    prob: float
    heads: tuple[int, ...]
    labels: tuple[str, ...]


@dataclass(frozen=True)
class ParsedSentence:
    """A sentence's tokens, fine and coarse part-of-speech tags and its n-best parses, most
    probable first (the greedy parse alone for n = 1)."""

    tokens: tuple[str, ...]
    tags: tuple[str, ...]
    pos: tuple[str, ...]
    parses: tuple[Parse, ...]


def weights(probs: Sequence[float], gamma: float) -> list[float]:
    """Flattened, normalised weights p^γ / Σ p^γ of an n-best list (§A5), in log space.

    γ = 0 gives the uniform distribution, γ = 1 the renormalised probabilities. A parse of
    probability 0 keeps weight 0 for γ > 0.

    Example:
        >>> [round(w, 4) for w in weights([0.7, 0.2, 0.1], 0.25)]
        [0.4263, 0.3117, 0.2621]
    """
    if not probs:
        return []
    if gamma == 0:
        return [1.0 / len(probs)] * len(probs)
    logs = [gamma * math.log(p) if p > 0 else -math.inf for p in probs]
    top = max(logs)
    if top == -math.inf:  # every probability underflowed: nothing to prefer
        return [1.0 / len(probs)] * len(probs)
    exps = [math.exp(value - top) for value in logs]
    total = sum(exps)
    return [value / total for value in exps]


def fragments(
    words: Sequence[str], heads: Sequence[int], labels: Sequence[str], kinds: Iterable[str]
) -> Counter[tuple[str, ...]]:
    """The bag of typed fragments of one tree (§A4); ``words`` are already case-folded.

    Example:
        >>> bag = fragments(["the", "cat"], [1, -1], ["det", "root"], ["dl", "lh"])
        >>> bag[("lh", "root", "<root>")]
        1
    """
    kinds = set(kinds)
    bag: Counter[tuple[str, ...]] = Counter()
    if "1g" in kinds:
        bag.update(("1g", word) for word in words)
    if "2g" in kinds:
        bag.update(("2g", a, b) for a, b in zip(words, words[1:], strict=False))
    for index, (head, label) in enumerate(zip(heads, labels, strict=True)):
        head_word = ROOT_WORD if head < 0 else words[head]
        if "dl" in kinds:
            bag[("dl", words[index], label)] += 1
        if "lh" in kinds:
            bag[("lh", label, head_word)] += 1
        if "dlh" in kinds:
            bag[("dlh", words[index], label, head_word)] += 1
    return bag


def expected_bag(
    words: Sequence[str],
    trees: Sequence[tuple[Sequence[int], Sequence[str]]],
    probs: Sequence[float],
    kinds: Iterable[str],
    gamma: float,
) -> Bag:
    """Expected fragment counts E[x] = Σ_k w_k · count(x, tree_k) over an n-best list.

    Word n-grams do not depend on the tree and the weights sum to one, so they are counted
    once with weight 1 instead of once per parse (same numbers, n times less work).
    """
    kinds = set(kinds)
    bag: Bag = dict(fragments(words, [], [], kinds - TREE_KINDS))
    tree_kinds = kinds & TREE_KINDS
    if tree_kinds:
        for weight, (heads, labels) in zip(weights(probs, gamma), trees, strict=True):
            if weight == 0:
                continue
            for key, count in fragments(words, heads, labels, tree_kinds).items():
                bag[key] = bag.get(key, 0.0) + weight * count
    return bag


def dpm_counts(hypothesis: Bag, reference: Bag) -> tuple[float, float, float]:
    """(match, T_h, T_r): clipped intersection of two expected bags and their totals.

    Example:
        >>> dpm_counts({("1g", "a"): 2.0}, {("1g", "a"): 0.5, ("1g", "b"): 1.0})
        (0.5, 2.0, 1.5)
    """
    match = sum(min(value, reference.get(key, 0.0)) for key, value in hypothesis.items())
    return match, float(sum(hypothesis.values())), float(sum(reference.values()))


def f_from_counts(match: float, hyp_total: float, ref_total: float) -> float:
    """F = 2·match / (T_h + T_r), the harmonic mean of P = match/T_h and R = match/T_r;
    NaN when both bags are empty (the score is undefined, not zero)."""
    total = hyp_total + ref_total
    return math.nan if total == 0 else 2.0 * match / total


# --- tree conventions -----------------------------------------------------------------------


def deprojectivize(heads: Sequence[int], labels: Sequence[str]) -> tuple[list[int], list[str]]:
    """Decode spaCy's pseudo-projective labels (``dobj||xcomp``) as ``nonproj.deprojectivize``
    does: the word keeps label ``dobj`` and moves to the nearest descendant (breadth first) of
    its head labelled ``xcomp``, or stays where no such word exists.

    Greedy parses arrive decoded (spaCy's pipeline does it); beam parses do not.
    """
    heads, labels = list(heads), list(labels)
    for index in range(len(heads)):
        if PROJECTIVE_DELIMITER not in labels[index]:
            continue
        label, head_label = labels[index].split(PROJECTIVE_DELIMITER, 1)
        labels[index] = label
        if heads[index] >= 0:
            heads[index] = _find_new_head(heads, labels, index, head_label)
    return heads, labels


def _find_new_head(heads: list[int], labels: list[str], index: int, head_label: str) -> int:
    queue = [heads[index]]
    while queue:
        following = []
        for node in queue:
            for child in (i for i, head in enumerate(heads) if head == node and i != node):
                if child == index:
                    continue
                if labels[child] == head_label:
                    return child
                following.append(child)
        queue = following
    return heads[index]


def reattach_prepositions(
    heads: Sequence[int], labels: Sequence[str]
) -> tuple[list[int], list[str]]:
    """Give prepositional phrases nominal heads, EDPM's first head-rule change (§A3, §A14.4).

    ClearNLP/spaCy hang the noun under the preposition (``pobj``). For each ``prep`` word with
    a ``pobj`` child, the (first) noun takes the preposition's head and label ``prep``, and the
    preposition becomes the noun's dependent with label ``case`` (as in Universal
    Dependencies). The preposition's other dependents stay with it. Auxiliaries and
    complementizers already depend on the verb in spaCy's scheme, EDPM's other two changes.

    Example:
        >>> reattach_prepositions([-1, 0, 1], ["root", "prep", "pobj"])
        ([-1, 2, 0], ['root', 'case', 'prep'])
    """
    original_heads, original_labels = tuple(heads), tuple(labels)
    heads, labels = list(heads), list(labels)
    # Read the original tree, so that a noun relabelled "prep" is never taken for a preposition.
    for prep, label in enumerate(original_labels):
        if label != "prep":
            continue
        noun = next(
            (
                i
                for i, (head, child_label) in enumerate(
                    zip(original_heads, original_labels, strict=True)
                )
                if head == prep and child_label == "pobj"
            ),
            None,
        )
        if noun is None:
            continue
        heads[noun], labels[noun] = heads[prep], "prep"
        heads[prep], labels[prep] = noun, "case"
    return heads, labels


_PHRASE = {
    "NOUN": "NP",
    "PROPN": "NP",
    "PRON": "NP",
    "NUM": "NP",
    "VERB": "VP",
    "AUX": "VP",
    "ADJ": "ADJP",
    "ADV": "ADVP",
    "ADP": "PP",
    "SCONJ": "SBAR",
}
_CLAUSE_LEVEL = frozenset(
    {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl", "mark", "punct", "cc", "intj"}
)
"""Dependents that attach at the clause (S) rather than the verb phrase: S/NP is the paper's
subject example."""


def ab_labels(
    heads: Sequence[int], labels: Sequence[str], tags: Sequence[str], pos: Sequence[str]
) -> list[str]:
    """Approximate the paper's A/B arc labels from a dependency tree (§A3, ``labels=ab-like``).

    B is the dependent's maximal projection: its phrase category when it heads a phrase
    (from its coarse POS), its fine tag when it heads nothing (``NP/DT`` for *the → cat*).
    A is the head's phrase category, ``S`` for clause-level dependents of a verb (``S/NP``
    for a subject). The root arc keeps label ``root``. A heuristic: without a constituency
    parse, A and B are guesses from POS, documented as such.
    """
    has_children = {head for head in heads if head >= 0}
    out = []
    for index, (head, label) in enumerate(zip(heads, labels, strict=True)):
        if head < 0:
            out.append(ROOT_LABEL)
            continue
        if index in has_children:
            below = _PHRASE.get(pos[index], tags[index])
        else:
            below = tags[index]
        above = _PHRASE.get(pos[head], tags[head])
        if above == "VP" and label in _CLAUSE_LEVEL:
            above = "S"
        out.append(f"{above}/{below}")
    return out
