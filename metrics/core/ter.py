"""TER, the translation edit rate with greedy block shifts, as tercom 0.7.25 and sacreBLEU 2.6.0.

Snover, Dorr, Schwartz, Micciulla & Makhoul, "A Study of Translation Edit Rate with Targeted
Human Annotation", AMTA 2006. This is a port of sacreBLEU's ``lib_ter.py`` (the readable model
of tercom) that keeps every heuristic and tie-break, so sentence and corpus numbers equal
sacreBLEU's ``TER``:

* shift candidates: hypothesis/reference matches of ≤ 10 words whose starts differ by ≤ 50,
  skipped when already aligned; ranked by (gain, length, earliest start, earliest target);
  shifts repeat while the best one gains and fewer than 1000 candidates were checked;
* the edit distance is tercom's beam search (width 25 around a length-ratio pseudo-diagonal),
  whose trace (ties: match/substitution, then hypothesis-word, then reference-word steps)
  decides which words count as errors;
* several references: the fewest edits over the references, over the *average* reference
  length; an empty reference gives edits = hypothesis length and length 0.

Speed (why this is much faster than sacreBLEU with identical results): the distance of
each shift candidate comes from rapidfuzz's exact C++ Levenshtein. The beam can only change
the result when every optimal path leaves the beam; any path through a cell (i, j) outside
the beam costs at least |i − j| + |(n − i) − (m − j)|, so when the exact distance is below the
minimum of that bound over all cells outside the beam (computed once per sentence pair, as
shifts keep the length), the beam distance equals the exact one. Otherwise the beam DP runs.

Scoring needs neither numpy nor :mod:`.alignment` (which brings numba): both are imported where
an array or an alignment is built, so a command-line score does not load them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rapidfuzz.distance import Levenshtein

from .base import MeasureError, Option
from .error_rate import ErrorRateMeasure, TokenPair, Tokens

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .alignment import Alignment, EditOp

MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
BEAM_WIDTH = 25
MAX_SHIFT_CANDIDATES = 1000

_INFINITY = 10**16
# Trace operations of the beam edit distance, rewriting the hypothesis into the reference:
# NOP/SUB diagonal, HYP consumes a hypothesis word, REF consumes a reference word.
_NOP, _SUB, _HYP, _REF = " ", "s", "d", "i"

# --- tercom normalisation (sacreBLEU's TercomTokenizer) ------------------------------------

_WESTERN_RULES = [
    (re.compile(r"\n-"), ""),
    (re.compile(r"\n"), " "),
    (re.compile(r"&quot;"), '"'),
    (re.compile(r"&amp;"), "&"),
    (re.compile(r"&lt;"), "<"),
    (re.compile(r"&gt;"), ">"),
]
_WESTERN_PADDED_RULES = [
    (re.compile(r"([{-~[-` -&(-+:-@/])"), r" \1 "),
    (re.compile(r"'s "), r" 's "),
    (re.compile(r"'s$"), r" 's"),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
]
_ASIAN_PUNCT = r"([\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb])"
_FULL_WIDTH_PUNCT = r"([\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09])"
_ASIAN_RULES = [
    (re.compile(r"([\u4e00-\u9fff\u3400-\u4dbf])"), r" \1 "),
    (re.compile(r"([\u31c0-\u31ef\u2e80-\u2eff])"), r" \1 "),
    (re.compile(r"([\u3300-\u33ff\uf900-\ufaff\ufe30-\ufe4f])"), r" \1 "),
    (re.compile(r"([\u3200-\u3f22])"), r" \1 "),
    (re.compile(r"(^|^[\u3040-\u309f])([\u3040-\u309f]+)(?=$|^[\u3040-\u309f])"), r"\1 \2 "),
    (re.compile(r"(^|^[\u30a0-\u30ff])([\u30a0-\u30ff]+)(?=$|^[\u30a0-\u30ff])"), r"\1 \2 "),
    (re.compile(r"(^|^[\u31f0-\u31ff])([\u31f0-\u31ff]+)(?=$|^[\u31f0-\u31ff])"), r"\1 \2 "),
    (re.compile(_ASIAN_PUNCT), r" \1 "),
    (re.compile(_FULL_WIDTH_PUNCT), r" \1 "),
]
_PUNCT = re.compile(r"[\.,\?:;!\"\(\)]")
_ASIAN_PUNCT_RULES = [re.compile(_ASIAN_PUNCT), re.compile(_FULL_WIDTH_PUNCT)]


@lru_cache(maxsize=2**16)
def tercom_tokenize(
    text: str,
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> Tokens:
    """tercom's normaliser (sacreBLEU ``TercomTokenizer``) on a right-stripped line.

    Lowercases first unless ``case_sensitive``; ``normalized`` splits punctuation the
    mteval way plus possessive ``'s``; ``no_punct`` removes ``.,?:;!"()``.
    """
    text = text.rstrip()
    if not case_sensitive:
        text = text.lower()
    if normalized:
        for pattern, replacement in _WESTERN_RULES:
            text = pattern.sub(replacement, text)
        text = f" {text} "
        for pattern, replacement in _WESTERN_PADDED_RULES:
            text = pattern.sub(replacement, text)
        if asian_support:
            for pattern, replacement in _ASIAN_RULES:
                text = pattern.sub(replacement, text)
    if no_punct:
        text = _PUNCT.sub("", text)
        if asian_support:
            for pattern in _ASIAN_PUNCT_RULES:
                text = pattern.sub("", text)
    return tuple(text.split())


# --- the beam edit distance ------------------------------------------------------------------


def _beam_width(hyp_length: int, ref_length: int) -> int:
    ratio = ref_length / hyp_length if hyp_length else 1.0
    if BEAM_WIDTH < ratio / 2:
        return math.ceil(ratio / 2 + BEAM_WIDTH)
    return BEAM_WIDTH


def _beam_columns(row: int, hyp_length: int, ref_length: int, width: int) -> tuple[int, int]:
    """The half-open column range [low, high) the beam computes in row ``row`` ≥ 1."""
    ratio = ref_length / hyp_length if hyp_length else 1.0
    diagonal = math.floor(row * ratio)
    low = max(0, diagonal - width)
    high = ref_length + 1 if row == hyp_length else min(ref_length + 1, diagonal + width)
    return low, high


def exactness_threshold(hyp_length: int, ref_length: int) -> float:
    """Below this distance the beam distance equals the exact Levenshtein distance.

    The minimum over cells outside the beam of |i − j| + |(n − i) − (m − j)|, a lower bound
    of the cost of any path through the cell; infinite when the beam covers every cell.
    """
    n, m = hyp_length, ref_length
    width = _beam_width(n, m)
    if m < width:
        # Row i's beam starts at column max(0, ⌊i·m/n⌋ − width) = 0 and ends at
        # min(m + 1, ⌊i·m/n⌋ + width) = m + 1: no cell lies outside.
        return math.inf
    best = math.inf
    shift = m - n
    ratio = m / n if n else 1.0
    # Inlined _beam_columns and, per row, the bound at the ends of the two column ranges
    # outside the beam and at the columns nearest to where it is least (i and i + m − n):
    # a fifth of TER's time went to this scan as separate calls and sets.
    for i in range(1, n + 1):
        diagonal = math.floor(i * ratio)
        low = max(0, diagonal - width)
        high = m + 1 if i == n else min(m + 1, diagonal + width)
        cheap_low, cheap_high = (i, i + shift) if shift >= 0 else (i + shift, i)
        for first, last in ((0, low - 1), (high, m)):
            if first > last:
                continue
            for j in (
                first,
                last,
                min(max(cheap_low, first), last),
                min(max(cheap_high, first), last),
            ):
                value = abs(i - j) + abs(j - i - shift)
                if value < best:
                    best = value
    return best


def beam_edit_distance(hyp: Sequence[Any], ref: Sequence[Any]) -> tuple[int, str]:
    """tercom's beam edit distance and its trace (sacreBLEU ``BeamEditDistance``, uncached)."""
    n, m = len(hyp), len(ref)
    width = _beam_width(n, m)
    previous = [(j, _REF) for j in range(m + 1)]
    rows = [previous]
    for i in range(1, n + 1):
        row = [(_INFINITY, "x")] * (m + 1)
        low, high = _beam_columns(i, n, m, width)
        word = hyp[i - 1]
        for j in range(low, high):
            if j == 0:
                row[0] = (previous[0][0] + 1, _HYP)
                continue
            best = (previous[j - 1][0] + (word != ref[j - 1]), _NOP if word == ref[j - 1] else _SUB)
            if previous[j][0] + 1 < best[0]:
                best = (previous[j][0] + 1, _HYP)
            if row[j - 1][0] + 1 < best[0]:
                best = (row[j - 1][0] + 1, _REF)
            row[j] = best
        rows.append(row)
        previous = row
    trace = []
    i, j = n, m
    while i > 0 or j > 0:
        operation = rows[i][j][1]
        trace.append(operation)
        if operation in (_SUB, _NOP):
            i, j = i - 1, j - 1
        elif operation == _REF:
            j -= 1
        else:
            i -= 1
    return rows[n][m][0], "".join(reversed(trace))


# --- the shift search -----------------------------------------------------------------------


@dataclass
class Shift:
    """One block shift: ``length`` words starting at ``start`` moved to position ``target``
    (an index of the hypothesis before the shift; words are inserted before it).

    ``original`` holds the moved words' positions in the unshifted hypothesis.
    """

    start: int
    length: int
    target: int
    words: list[str]
    original: list[int] = field(default_factory=list)

    def operation(self) -> EditOp:
        """The shift as an edit operation of cost 1 (spans in the hypothesis before it)."""
        from .alignment import EditOp

        return EditOp(
            "shift",
            None,
            None,
            1.0,
            hyp_span=(self.start, self.start + self.length),
            detail={"to": self.target, "words": list(self.words), "original": self.original},
        )


def perform_shift(words: list[int], start: int, length: int, target: int) -> list[int]:
    """The hypothesis with ``words[start:start+length]`` moved before position ``target``."""
    if target < start:
        return (
            words[:target]
            + words[start : start + length]
            + words[target:start]
            + words[start + length :]
        )
    if target > start + length:
        return (
            words[:start]
            + words[start + length : target]
            + words[start : start + length]
            + words[target:]
        )
    return (
        words[:start]
        + words[start + length : length + target]
        + words[start : start + length]
        + words[length + target :]
    )


class _ShiftSearch:
    """The greedy shift search of one hypothesis/reference pair on integer word ids."""

    def __init__(self, hyp: list[int], ref: list[int]) -> None:
        self.ref = ref
        self.threshold = exactness_threshold(len(hyp), len(ref))
        self.ref_positions: dict[int, list[int]] = {}
        self.ref_masks: dict[int, int] = {}
        for position, word in enumerate(ref):
            self.ref_positions.setdefault(word, []).append(position)
            self.ref_masks[word] = self.ref_masks.get(word, 0) | (1 << position)

    def distance(self, hyp: list[int]) -> int:
        exact = Levenshtein.distance(hyp, self.ref)
        if exact < self.threshold:
            return exact
        return beam_edit_distance(hyp, self.ref)[0]

    def distance_and_trace(self, hyp: list[int]) -> tuple[int, str]:
        """The beam distance and trace; from the exact bit-parallel DP where that is equal."""
        exact, trace = bit_parallel_trace(hyp, self.ref, self.ref_masks)
        if exact < self.threshold:
            return exact, trace
        return beam_edit_distance(hyp, self.ref)

    def matches(self, hyp: list[int]):  # type: ignore[no-untyped-def]
        """(start_h, start_r, length) of matching blocks, in sacreBLEU's order."""
        ref, n, m = self.ref, len(hyp), len(self.ref)
        for start_h, word in enumerate(hyp):
            for start_r in self.ref_positions.get(word, ()):
                if abs(start_r - start_h) > MAX_SHIFT_DIST:
                    continue
                length = 0
                while hyp[start_h + length] == ref[start_r + length] and length < MAX_SHIFT_SIZE:
                    length += 1
                    yield start_h, start_r, length
                    if n == start_h + length or m == start_r + length:
                        break

    def best_shift(
        self, hyp: list[int], score: int, trace: str, checked: int
    ) -> tuple[int, list[int], int, tuple[int, int, int]]:
        """Gain, shifted hypothesis, candidates checked so far and (start, length, target)."""
        aligned, ref_error_sums, hyp_error_sums = _trace_to_alignment(trace)
        best: tuple[Any, ...] | None = None
        for start_h, start_r, length in self.matches(hyp):
            if hyp_error_sums[start_h + length] == hyp_error_sums[start_h]:
                continue
            if ref_error_sums[start_r + length] == ref_error_sums[start_r]:
                continue
            if start_h <= aligned[start_r] < start_h + length:
                continue
            previous_target = -1
            for offset in range(-1, length):
                if start_r + offset == -1:
                    target = 0
                elif start_r + offset < len(aligned):
                    target = aligned[start_r + offset] + 1
                else:
                    break
                if target == previous_target:
                    continue
                previous_target = target
                shifted = perform_shift(hyp, start_h, length, target)
                candidate = (score - self.distance(shifted), length, -start_h, -target, shifted)
                checked += 1
                if best is None or candidate > best:
                    best = candidate
            if checked >= MAX_SHIFT_CANDIDATES:
                break
        if best is None:
            return 0, hyp, checked, (0, 0, 0)
        gain, length, start, target, shifted = best
        return gain, shifted, checked, (-start, length, -target)

    def run(self, hyp: list[int]) -> tuple[int, list[int], list[tuple[int, int, int]], str]:
        """Edits (shifts + beam distance), the final hypothesis, the shifts made, its trace.

        The shifted-away hypothesis keeps its distance, so the last search's distance is the
        final one (sacreBLEU recomputes it).
        """
        shifts: list[tuple[int, int, int]] = []
        checked = 0
        while True:
            score, trace = self.distance_and_trace(hyp)
            if score == 0:
                break  # no word is wrong, so every candidate would be skipped
            gain, shifted, checked, shift = self.best_shift(hyp, score, trace, checked)
            if checked >= MAX_SHIFT_CANDIDATES or gain <= 0:
                break
            shifts.append(shift)
            hyp = shifted
        return len(shifts) + score, hyp, shifts, trace


def bit_parallel_trace(
    hyp: list[int], ref: list[int], ref_masks: dict[int, int]
) -> tuple[int, str]:
    """Exact Levenshtein distance and tercom's trace (Myers/Hyyrö bit-parallel DP).

    Bit j−1 of ``vp[i]``/``vn[i]`` says D(i, j) − D(i, j−1) is +1/−1, so any cell is
    D(i, j) = i + popcount(vp[i] below j) − popcount(vn[i] below j). The backtrace from
    (n, m) prefers diagonal, then hypothesis-word, then reference-word steps, as tercom.
    """
    m = len(ref)
    full = (1 << m) - 1
    vp, vn = full, 0
    vps, vns = [vp], [vn]
    mask_of, keep_vp, keep_vn = ref_masks.get, vps.append, vns.append
    for word in hyp:
        eq = mask_of(word, 0)
        xv = eq | vn
        xh = (((eq & vp) + vp) ^ vp) | eq
        hp = vn | ~(xh | vp)
        hn = vp & xh
        hp = ((hp << 1) | 1) & full
        hn = (hn << 1) & full
        vp = (hn | ~(xv | hp)) & full
        vn = hp & xv
        keep_vp(vp)
        keep_vn(vn)

    i, j = len(hyp), m
    distance = value = i + vp.bit_count() - vn.bit_count()  # D(n, m): every bit is below m
    trace = []
    while i > 0 and j > 0:
        # D(i − 1, j − 1) and D(i − 1, j) from row i − 1's differences (inlined: a helper's
        # calls were a quarter of the trace's time); they differ by that row's bit j − 1.
        up_vp, up_vn = vps[i - 1], vns[i - 1]
        below = (1 << (j - 1)) - 1
        diagonal = i - 1 + (up_vp & below).bit_count() - (up_vn & below).bit_count()
        word = hyp[i - 1]
        if diagonal + (word != ref[j - 1]) == value:
            trace.append(_NOP if word == ref[j - 1] else _SUB)
            i, j, value = i - 1, j - 1, diagonal
        elif diagonal + ((up_vp >> (j - 1)) & 1) - ((up_vn >> (j - 1)) & 1) + 1 == value:
            trace.append(_HYP)
            i, value = i - 1, value - 1
        else:
            trace.append(_REF)
            j, value = j - 1, value - 1
    trace.extend(_HYP * i + _REF * j)
    return distance, "".join(reversed(trace))


def _trace_to_alignment(trace: str) -> tuple[list[int], list[int], list[int]]:
    """Reference position -> hypothesis position (sacreBLEU's flipped trace), and the running
    counts of reference and of hypothesis errors: ``sums[k]`` errors among the first k words
    (prefix sums, so that a block's errors are one difference)."""
    hyp_position = -1
    ref_errors = hyp_errors = 0
    aligned: list[int] = []
    hyp_sums = [0]
    ref_sums = [0]
    for operation in trace:
        if operation == _NOP:
            hyp_position += 1
            aligned.append(hyp_position)
            hyp_sums.append(hyp_errors)
            ref_sums.append(ref_errors)
        elif operation == _SUB:
            hyp_position += 1
            aligned.append(hyp_position)
            hyp_errors += 1
            ref_errors += 1
            hyp_sums.append(hyp_errors)
            ref_sums.append(ref_errors)
        elif operation == _HYP:
            hyp_position += 1
            hyp_errors += 1
            hyp_sums.append(hyp_errors)
        else:
            aligned.append(hyp_position)
            ref_errors += 1
            ref_sums.append(ref_errors)
    return aligned, ref_sums, hyp_sums


def _word_ids(hyp: Sequence[str], ref: Sequence[str]) -> tuple[list[int], list[int]]:
    vocabulary: dict[str, int] = {}
    hyp_ids = [vocabulary.setdefault(word, len(vocabulary)) for word in hyp]
    ref_ids = [vocabulary.setdefault(word, len(vocabulary)) for word in ref]
    return hyp_ids, ref_ids


def translation_edit_rate(hyp: Sequence[str], ref: Sequence[str]) -> tuple[int, int]:
    """Edits (shifts + edit distance) of one pair and the reference length.

    Example:
        >>> translation_edit_rate("d e f g h a b c".split(), "a b c d e f g h".split())
        (1, 8)
    """
    if not ref:
        return len(hyp), 0
    hyp_ids, ref_ids = _word_ids(hyp, ref)
    edits, _, _, _ = _ShiftSearch(hyp_ids, ref_ids).run(hyp_ids)
    return edits, len(ref)


def ter_alignment(hyp: Sequence[str], ref: Sequence[str]) -> dict[str, Any]:
    """Shifts, the shifted hypothesis and the word edits of tercom's best path.

    Returns:
        ``{"edits", "shifts": [Shift...], "shifted_hyp", "shifted_positions", "operations":
        [EditOp...]}``; operation indexes refer to the shifted hypothesis, whose word k is
        word ``shifted_positions[k]`` of the original one. Shifts come in the order tercom
        applies them, each with positions in the hypothesis as it stands before that shift.
    """
    from .alignment import EditOp

    if not ref:
        deletions = [EditOp("delete", i, None, 1.0) for i in range(len(hyp))]
        return {
            "edits": len(hyp),
            "shifts": [],
            "shifted_hyp": list(hyp),
            "shifted_positions": list(range(len(hyp))),
            "operations": deletions,
        }
    hyp_ids, ref_ids = _word_ids(hyp, ref)
    search = _ShiftSearch(hyp_ids, ref_ids)
    edits, _, shift_positions, trace = search.run(hyp_ids)
    positions = list(range(len(hyp)))
    shifts = []
    for start, length, target in shift_positions:
        moved = positions[start : start + length]
        shifts.append(Shift(start, length, target, [hyp[k] for k in moved], moved))
        positions = perform_shift(positions, start, length, target)
    return {
        "edits": edits,
        "shifts": shifts,
        "shifted_hyp": [hyp[k] for k in positions],
        "shifted_positions": positions,
        "operations": _trace_ops(trace),
    }


def _trace_ops(trace: str) -> list[EditOp]:
    from .alignment import EditOp

    operations = []
    i = j = 0
    for operation in trace:
        if operation in (_NOP, _SUB):
            kind = "match" if operation == _NOP else "substitute"
            operations.append(EditOp(kind, i, j, float(operation == _SUB), (i, j), (i + 1, j + 1)))
            i, j = i + 1, j + 1
        elif operation == _HYP:
            operations.append(EditOp("delete", i, None, 1.0, (i, j), (i + 1, j)))
            i += 1
        else:
            operations.append(EditOp("insert", None, j, 1.0, (i, j), (i, j + 1)))
            j += 1
    return operations


LOWERCASE_ALIAS = Option(
    True,
    "Alias: lowercase=B is case-sensitive=(not B), the key every measure has; "
    "the signature shows cs.",
    kind=bool,
)
"""TER's ``lowercase`` key: accepted and listed, but not an option of its own."""


class TER(ErrorRateMeasure):
    """Translation edit rate in percent, identical to sacreBLEU 2.6.0's ``TER``."""

    name = "ter"
    description = "Translation edit rate (tercom 0.7.25 / sacreBLEU semantics), Snover et al. 2006."
    options = {
        "normalized": Option(
            False, "tercom normalisation: split punctuation.", kind=bool, short="norm"
        ),
        "no-punct": Option(
            False, 'Remove punctuation .,?:;!"() first.', kind=bool, short="nopunct"
        ),
        "asian-support": Option(
            False, "Split CJK characters (with normalized/no-punct).", kind=bool, short="asian"
        ),
        "case-sensitive": Option(
            False, "Keep case (tercom lowercases by default).", kind=bool, short="cs"
        ),
    }

    def __init__(self, **values: Any) -> None:
        """Options as every measure takes them, plus ``lowercase``, an alias of the opposite
        of ``case-sensitive``. The alias is no option of its own, so forms, stored option
        values and signatures stay as they were (``cs`` shows the case)."""
        given = {key.replace("_", "-"): value for key, value in values.items()}
        if "lowercase" in given:
            lowercase = LOWERCASE_ALIAS.convert("lowercase", given.pop("lowercase"))
            if "case-sensitive" in given:
                case_sensitive = self.options["case-sensitive"].convert(
                    "case-sensitive", given["case-sensitive"]
                )
                if case_sensitive == lowercase:
                    raise MeasureError(
                        "measure ter: options lowercase and case-sensitive contradict each other"
                    )
            given["case-sensitive"] = not lowercase
        super().__init__(**given)

    @classmethod
    def describe(cls) -> dict[str, Any]:
        description = super().describe()
        description["options"]["lowercase"] = LOWERCASE_ALIAS.describe()
        return description

    def tokens(self, text: str) -> Tokens:
        return tercom_tokenize(
            text,
            self.values["normalized"],
            self.values["no-punct"],
            self.values["asian-support"],
            self.values["case-sensitive"],
        )

    def tokens_many(self, texts: Sequence[str]) -> list[Tokens]:
        return [self.tokens(text) for text in texts]

    def pair_distances(self, pairs: Sequence[TokenPair]) -> npt.NDArray[np.float64]:
        import numpy as np

        return np.array([translation_edit_rate(hyp, ref)[0] for hyp, ref in pairs], dtype=float)

    def plain_distances(self, pairs: Sequence[TokenPair]) -> list[float]:
        return [float(translation_edit_rate(hyp, ref)[0]) for hyp, ref in pairs]

    def choose_reference(
        self, distances: Sequence[float], ref_lengths: Sequence[int]
    ) -> tuple[int, float, float]:
        """Fewest edits (the first such reference) over the average reference length
        (tercom's rule)."""
        best = min(range(len(distances)), key=lambda r: (distances[r], r))
        return best, float(distances[best]), sum(ref_lengths) / len(ref_lengths)

    def rate(self, distance: float, ref_length: float) -> float:
        """sacreBLEU's convention: an empty reference scores 100 with edits, else 0."""
        if ref_length > 0:
            return 100.0 * distance / ref_length
        return 100.0 if distance > 0 else 0.0

    def align(self, hyp: str, ref: str, grid: bool = False) -> Alignment:
        """Shifts (in ``extras``) and the edits of the shifted hypothesis; no grid.

        ``operations`` is the word path of the shifted hypothesis (``extras["shifted_hyp"]``;
        ``extras["shifted_positions"]`` maps its words back); ``charged_operations`` puts a
        ``shift`` operation per shift, in tercom's order, before that path, so the costs add
        up to the edits (shifts + edit distance).
        """
        from .alignment import Alignment

        hyp_tokens, ref_tokens = self.tokens(hyp), self.tokens(ref)
        result = ter_alignment(hyp_tokens, ref_tokens)
        shifts = [shift.operation() for shift in result["shifts"]]
        return Alignment(
            self.name,
            list(hyp_tokens),
            list(ref_tokens),
            float(result["edits"]),
            result["operations"],
            None,
            {
                "shifts": result["shifts"],
                "shifted_hyp": result["shifted_hyp"],
                "shifted_positions": result["shifted_positions"],
            },
            shifts + result["operations"],
        )
