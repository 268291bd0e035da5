"""Alignments of every edit measure (issue 18): hand vectors of the measures spec, paths checked
edge by edge, co-optimal edges against an independent search, costs against the statistics.

Oracles: the spec's printed vectors (§6.2 T1, §6.5, §6.6, §9.8, §10.2, §10.3, §10.9), brute
force over all monotone paths (WER), Dijkstra over the long-jump graph (CDER), the
statistics the measures score with, and sacreBLEU's own TER shift loop.
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import lib_ter

from metrics.core.alignment import Alignment, EditOp
from metrics.core.base import MeasureError
from metrics.core.cder import CDER
from metrics.core.invwer import INVWER
from metrics.core.ljwer import LJWER
from metrics.core.mper import MPER, SkipBigramPER
from metrics.core.per import MSDER, PER, count_vector_distance
from metrics.core.reflength import DISTANCE_RULES
from metrics.core.ter import TER
from metrics.core.wer import WER, prefix_substitution_cost
from tests.metrics.core._edit_pairs import PAIR
from tests.metrics.core.test_cder import TABLE_9_8

words = st.lists(st.sampled_from("abc"), max_size=5).map(tuple)
sentences = st.lists(st.sampled_from("abcd"), max_size=6).map(" ".join)
PAD_ENDS = {"none": (False, False), "left": (True, False), "right": (False, True)}
PAD_ENDS["both"] = (True, True)


def edge(op: EditOp) -> tuple[str, Any, Any]:
    return op.kind, op.source, op.target


def statistics_row(measure: Any, hyp: str, refs: list[str]) -> list[float]:
    return measure.statistics([hyp], [refs], measure.context([refs]))[0].tolist()


# --------------------------------------------------------------------------- grid paths


def check_grid_path(
    operations: list[EditOp],
    columns: list[str],
    rows: list[str],
    start_fixed: bool = True,
    end_fixed: bool = True,
    cost_of: Any = None,
) -> None:
    """One connected path of grid edges: consistent with the words, jumps within a row, from
    the start to the end the pad rule allows, every row word consumed exactly once."""
    cost_of = cost_of or (lambda a, b: float(a != b))
    if not operations and not start_fixed:
        assert not rows  # an empty path starts where it ends, in row L = 0
        return
    node = (0, 0) if start_fixed or not operations else operations[0].source
    assert node is not None and node[1] == 0
    for op in operations:
        assert op.source == node, (op, node)
        i, j = node
        if op.kind in ("match", "substitute"):
            assert (op.hyp_index, op.ref_index, op.target) == (i, j, (i + 1, j + 1))
            assert op.kind == ("match" if columns[i] == rows[j] else "substitute")
            assert op.cost == pytest.approx(cost_of(columns[i], rows[j]))
        elif op.kind == "insert":
            assert (op.hyp_index, op.ref_index, op.target) == (None, j, (i, j + 1))
        elif op.kind == "delete":
            assert (op.hyp_index, op.ref_index, op.target) == (i, None, (i + 1, j))
        else:
            assert op.kind == "jump" and op.target is not None
            assert op.target[1] == j and op.target != node and op.cost == 1.0
        assert op.target is not None
        node = op.target
    assert node[1] == len(rows)
    if end_fixed:
        assert node == (len(columns), len(rows))
    consumed = Counter(op.ref_index for op in operations if op.ref_index is not None)
    assert consumed == Counter(range(len(rows)))


def monotone_optimal_edges(hyp: tuple[str, ...], ref: tuple[str, ...], cost_of: Any) -> set:
    """Brute force: the edges of every cheapest monotone path from (0, 0) to (I, L)."""
    paths: list[tuple[float, list[tuple[str, Any, Any]]]] = []

    def walk(i: int, j: int, cost: float, taken: list[tuple[str, Any, Any]]) -> None:
        if (i, j) == (len(hyp), len(ref)):
            paths.append((cost, list(taken)))
            return
        moves = []
        if i < len(hyp) and j < len(ref):
            step = cost_of(hyp[i], ref[j])
            moves.append(("match" if step == 0 else "substitute", i + 1, j + 1, step))
        if j < len(ref):
            moves.append(("insert", i, j + 1, 1.0))
        if i < len(hyp):
            moves.append(("delete", i + 1, j, 1.0))
        for kind, i2, j2, step in moves:
            taken.append((kind, (i, j), (i2, j2)))
            walk(i2, j2, cost + step, taken)
            taken.pop()

    walk(0, 0, 0.0, [])
    best = min(cost for cost, _ in paths)
    return {e for cost, taken in paths if cost <= best + 1e-9 for e in taken}


def long_jump_optimal_edges(
    hyp: tuple[str, ...], ref: tuple[str, ...], start_fixed: bool, end_fixed: bool
) -> tuple[float, set]:
    """Dijkstra over the CDER graph (spec §9.2: Levenshtein edges plus a long jump of cost 1
    between any two nodes of a row; a free start/end joins every node of row 0/L to a
    source/sink): the distance and every edge u → v with f(u) + c + b(v) = d."""
    n, m = len(hyp), len(ref)
    nodes = [(i, j) for i in range(n + 1) for j in range(m + 1)]
    edges: list[tuple[str, Any, Any, float]] = []
    for i, j in nodes:
        if i < n and j < m:
            step = float(hyp[i] != ref[j])
            edges.append(("match" if step == 0 else "substitute", (i, j), (i + 1, j + 1), step))
        if j < m:
            edges.append(("insert", (i, j), (i, j + 1), 1.0))
        if i < n:
            edges.append(("delete", (i, j), (i + 1, j), 1.0))
        edges.extend(("jump", (i, j), (k, j), 1.0) for k in range(n + 1) if k != i)
    starts = [(0, 0)] if start_fixed else [(i, 0) for i in range(n + 1)]
    ends = [(n, m)] if end_fixed else [(i, m) for i in range(n + 1)]

    def dijkstra(sources: list[Any], forward: bool) -> dict[Any, float]:
        adjacency: dict[Any, list[tuple[Any, float]]] = {node: [] for node in nodes}
        for _, u, v, c in edges:
            if forward:
                adjacency[u].append((v, c))
            else:
                adjacency[v].append((u, c))
        best = {node: float("inf") for node in nodes}
        queue = [(0.0, node) for node in sources]
        for _, node in queue:
            best[node] = 0.0
        heapq.heapify(queue)
        while queue:
            cost, node = heapq.heappop(queue)
            if cost > best[node]:
                continue
            for other, c in adjacency[node]:
                if cost + c < best[other]:
                    best[other] = cost + c
                    heapq.heappush(queue, (cost + c, other))
        return best

    f, b = dijkstra(starts, True), dijkstra(ends, False)
    distance = min(f[node] for node in ends)
    on_path = {(kind, u, v) for kind, u, v, c in edges if f[u] + c + b[v] <= distance + 1e-9}
    return distance, on_path


# --------------------------------------------------------------------------- WER


def test_wer_all_paths_of_the_spec_section_7_pair() -> None:
    """`we have been there` / `we were there` (d = 2): `we` and `there` match, and `have been`
    becomes `were` either by substituting `have` and deleting `been` or the other way round."""
    alignment = WER(tokenize="none").align("we have been there", "we were there", all_paths=True)
    expected = {
        ("match", (0, 0), (1, 1)),
        ("substitute", (1, 1), (2, 2)),
        ("delete", (2, 2), (3, 2)),
        ("delete", (1, 1), (2, 1)),
        ("substitute", (2, 1), (3, 2)),
        ("match", (3, 2), (4, 3)),
    }
    assert {edge(op) for op in alignment.extras["optimal_edges"]} == expected
    assert alignment.cost() == alignment.distance == 2


@settings(max_examples=150, deadline=None)
@given(words, words, st.sampled_from(["none", "prefix"]))
def test_wer_paths_against_brute_force(
    hyp: tuple[str, ...], ref: tuple[str, ...], rule: str
) -> None:
    measure = WER(tokenize="none", substitution_cost_rule=rule)
    cost_of = prefix_substitution_cost if rule == "prefix" else (lambda a, b: float(a != b))
    alignment = measure.align(" ".join(hyp), " ".join(ref), all_paths=True)
    check_grid_path(alignment.operations, list(hyp), list(ref), cost_of=cost_of)
    edges = {edge(op) for op in alignment.extras["optimal_edges"]}
    assert edges == monotone_optimal_edges(hyp, ref, cost_of)
    assert {edge(op) for op in alignment.operations} <= edges
    assert alignment.cost() == pytest.approx(alignment.distance)
    assert alignment.distance == pytest.approx(
        statistics_row(measure, " ".join(hyp), [" ".join(ref)])[0]
    )


# --------------------------------------------------------------------------- CDER


@pytest.mark.parametrize(
    ("hyp", "ref", "forward", "backward", "cov", "lp_length", "lp_misc"), TABLE_9_8
)
def test_cder_alignments_of_table_9_8(hyp, ref, forward, backward, cov, lp_length, lp_misc) -> None:  # noqa: ANN001
    """Per pad rule a valid long-jump path of the table's cost; per direction, coverage rule
    and pad rule the charged operations add up to the table's distance."""
    columns, rows = hyp.split(), ref.split()
    for pad, expected in zip(("none", "left", "right", "both"), forward, strict=True):
        alignment = CDER(tokenize="none", pad_rule=pad).align(hyp, ref)
        check_grid_path(alignment.operations, columns, rows, *PAD_ENDS[pad])
        assert alignment.distance == alignment.cost() == expected, pad
        counts = Counter(
            op.hyp_index for op in alignment.operations if op.kind not in ("insert", "jump")
        )
        assert alignment.extras["coverage"] == [counts[i] for i in range(len(columns))]
    assert CDER(tokenize="none").align(hyp, ref).extras["coverage"] == cov
    both = forward[3]
    expected = {
        ("forward", "length"): both + lp_length,
        ("forward", "miscoverage"): both + lp_misc,
        ("forward", "half"): both + (lp_length + lp_misc) / 2,
        ("backward", "none"): backward,
        ("bidirectional", "none"): (both + backward) / 2,
        ("maximum", "none"): max(both, backward),
    }
    for (direction, rule), distance in expected.items():
        alignment = CDER(tokenize="none", direction=direction, coverage_rule=rule).align(hyp, ref)
        assert alignment.distance == pytest.approx(distance), (direction, rule)
        assert alignment.cost() == pytest.approx(distance), (direction, rule)
        penalties = [op for op in alignment.costed_operations() if op.kind == "penalty"]
        penalty = distance - both if rule != "none" else 0
        assert sum(op.cost for op in penalties) == pytest.approx(penalty)


@settings(max_examples=120, deadline=None)
@given(words, words, st.sampled_from(sorted(PAD_ENDS)))
def test_cder_optimal_edges_against_dijkstra(
    hyp: tuple[str, ...], ref: tuple[str, ...], pad: str
) -> None:
    alignment = CDER(tokenize="none", pad_rule=pad).align(
        " ".join(hyp), " ".join(ref), all_paths=True
    )
    distance, expected = long_jump_optimal_edges(hyp, ref, *PAD_ENDS[pad])
    assert alignment.distance == distance
    edges = {edge(op) for op in alignment.extras["optimal_edges"]}
    assert edges == expected
    assert {edge(op) for op in alignment.operations} <= edges
    check_grid_path(alignment.operations, list(hyp), list(ref), *PAD_ENDS[pad])


@settings(max_examples=120, deadline=None)
@given(
    words,
    words,
    st.sampled_from(sorted(PAD_ENDS)),
    st.sampled_from(["backward", "bidirectional", "maximum"]),
    st.sampled_from(["none", "length", "miscoverage", "half"]),
)
def test_cder_directions_cover_their_side_once_and_cost_the_statistics(
    hyp: tuple[str, ...], ref: tuple[str, ...], pad: str, direction: str, rule: str
) -> None:
    """The backward path, transposed into candidate/reference orientation, consumes every
    candidate word exactly once (backward CDER covers the candidate); the forward path every
    reference word. The charged costs are the distance the statistics use."""
    measure = CDER(tokenize="none", pad_rule=pad, direction=direction, coverage_rule=rule)
    hyp_text, ref_text = " ".join(hyp), " ".join(ref)
    alignment = measure.align(hyp_text, ref_text)
    assert alignment.cost() == pytest.approx(alignment.distance)
    assert alignment.distance == pytest.approx(statistics_row(measure, hyp_text, [ref_text])[0])
    for name, side, attribute in (
        ("backward", len(hyp), "hyp_index"),
        ("forward", len(ref), "ref_index"),
    ):
        path = [
            op
            for op in alignment.costed_operations()
            if (op.detail or {}).get("direction") == name and op.kind != "penalty"
        ]
        if path:
            used = Counter(
                getattr(op, attribute) for op in path if getattr(op, attribute) is not None
            )
            assert used == Counter(range(side)), name


# --------------------------------------------------------------------------- PER, MSDER


def test_per_matching_of_spec_t1() -> None:
    """Spec §6.2 / §18 T1: we/we, have/were, been/ε, there/there; d_PER = 2."""
    alignment = PER(tokenize="none").align("we have been there", "we were there")
    assert alignment.extras["matching"] == [[0, 0], [1, 1], [2, None], [3, 2]]
    assert [op.kind for op in alignment.operations] == ["match", "substitute", "delete", "match"]
    assert alignment.distance == alignment.cost() == 2


@settings(max_examples=150, deadline=None)
@given(words, words, st.sampled_from(["none", "prefix", "levenshtein"]))
def test_per_matching_is_one_to_one_and_costs_the_distance(
    hyp: tuple[str, ...], ref: tuple[str, ...], rule: str
) -> None:
    measure = PER(tokenize="none", substitution_cost_rule=rule)
    alignment = measure.align(" ".join(hyp), " ".join(ref))
    pairs = alignment.extras["matching"]
    assert sorted(i for i, _ in pairs if i is not None) == list(range(len(hyp)))
    assert sorted(j for _, j in pairs if j is not None) == list(range(len(ref)))
    assert alignment.cost() == pytest.approx(alignment.distance)
    assert alignment.distance == pytest.approx(
        statistics_row(measure, " ".join(hyp), [" ".join(ref)])[0]
    )
    if rule == "none":
        matched = sum(1 for i, j in pairs if i is not None and j is not None and hyp[i] == ref[j])
        assert matched == sum((Counter(hyp) & Counter(ref)).values())
        assert alignment.distance == count_vector_distance(Counter(hyp), Counter(ref))


@settings(max_examples=100, deadline=None)
@given(words, words)
def test_msder_matches_equal_words_only(hyp: tuple[str, ...], ref: tuple[str, ...]) -> None:
    measure = MSDER(tokenize="none")
    alignment = measure.align(" ".join(hyp), " ".join(ref))
    assert all(op.kind != "substitute" for op in alignment.operations)
    assert all(hyp[i] == ref[j] for i, j in alignment.extras["matching"] if None not in (i, j))
    assert (
        alignment.cost()
        == alignment.distance
        == sum(((Counter(hyp) - Counter(ref)) + (Counter(ref) - Counter(hyp))).values())
    )


# --------------------------------------------------------------------------- INVWER


def check_block_tree(node: dict[str, Any], hyp: list[str], ref: list[str]) -> tuple[float, int]:
    """A valid BTG tree: leaves are one word pair or one side empty; a straight block's
    children concatenate in both sentences, an inverted block's in the candidate and in
    reverse in the reference. Returns (leaf costs, inverted blocks) under unit costs."""
    (i0, i1), (l0, l1) = node["hyp"], node["ref"]
    if "children" not in node:
        if node["type"] in ("match", "substitute"):
            assert (i1 - i0, l1 - l0) == (1, 1)
            assert node["type"] == ("match" if hyp[i0] == ref[l0] else "substitute")
            return float(node["type"] == "substitute"), 0
        assert node["type"] == ("insert" if i0 == i1 else "delete")
        assert (i0 == i1) != (l0 == l1) or not (hyp or ref)  # the empty pair: one empty leaf
        return float((i1 - i0) + (l1 - l0)), 0
    children = node["children"]
    assert len(children) >= 2 and node["type"] in ("straight", "inverted")
    assert [c["hyp"][0] for c in children[1:]] == [c["hyp"][1] for c in children[:-1]]
    assert (children[0]["hyp"][0], children[-1]["hyp"][1]) == (i0, i1)
    ordered = children if node["type"] == "straight" else children[::-1]
    assert [c["ref"][0] for c in ordered[1:]] == [c["ref"][1] for c in ordered[:-1]]
    assert (ordered[0]["ref"][0], ordered[-1]["ref"][1]) == (l0, l1)
    if node["type"] == "straight":
        assert all(child["type"] != "straight" for child in children)  # flattened
    cost, inversions = 0.0, int(node["type"] == "inverted")
    for child in children:
        child_cost, child_inversions = check_block_tree(child, hyp, ref)
        cost, inversions = cost + child_cost, inversions + child_inversions
    return cost, inversions


@pytest.mark.parametrize(
    ("hyp", "ref", "brackets"),
    [
        (  # §10.2 with the equivalent tree of the [C] note (ε/twelve, noon/o'clock)
            "we will meet at noon in the lobby",
            "we will meet in the lobby at twelve o'clock",
            "[ we/we will/will meet/meet ⟨ [ at/at ε/twelve noon/o'clock ] "
            "[ in/in the/the lobby/lobby ] ⟩ ]",
        ),
        # §10.3: [ε/b ⟨[a/a [b/ε c/c]] d/d⟩] and [a/a [b/b ⟨c/c d/d⟩]], concatenations flattened
        ("a b c d", "b d a c", "[ ε/b ⟨ [ a/a b/ε c/c ] d/d ⟩ ]"),
        ("a b c d", "a b d c", "[ a/a b/b ⟨ c/c d/d ⟩ ]"),
    ],
)
def test_invwer_trees_of_the_spec(hyp: str, ref: str, brackets: str) -> None:
    alignment = INVWER(tokenize="none").align(hyp, ref)
    assert alignment.extras["brackets"] == brackets
    inversions = [op for op in alignment.costed_operations() if op.kind == "inversion"]
    assert alignment.cost() == alignment.distance == alignment.extras["tree"]["cost"]
    leaves, inverted = check_block_tree(alignment.extras["blocks"], hyp.split(), ref.split())
    assert len(inversions) == inverted and leaves + inverted == alignment.distance


def test_invwer_inversion_spans_of_the_worked_example() -> None:
    """§10.2: the inverted block is `at noon in the lobby` against `in the lobby at twelve
    o'clock`, its candidate halves `at noon` | `in the lobby` against the reference halves
    `at twelve o'clock` | `in the lobby`."""
    alignment = INVWER(tokenize="none").align(
        "we will meet at noon in the lobby", "we will meet in the lobby at twelve o'clock"
    )
    (inversion,) = [op for op in alignment.costed_operations() if op.kind == "inversion"]
    assert (inversion.hyp_span, inversion.ref_span, inversion.cost) == ((3, 8), (3, 9), 1.0)
    (block,) = [b for b in alignment.extras["blocks"]["children"] if b["type"] == "inverted"]
    assert [(c["hyp"], c["ref"]) for c in block["children"]] == [([3, 5], [6, 9]), ([5, 8], [3, 6])]


@settings(max_examples=80, deadline=None)
@given(PAIR, st.sampled_from(["1,1,1,1,1", "2,2,2,2,1", "1,1,1,1,0"]))
def test_invwer_tree_is_valid_and_costs_the_distance(pair: tuple, costs: str) -> None:
    hyp, ref = pair
    measure = INVWER(tokenize="none", transposition_costs=costs)
    alignment = measure.align(" ".join(hyp), " ".join(ref))
    denominator, c_sub, _, _, c_inv = measure.costs
    _, inverted = check_block_tree(alignment.extras["blocks"], list(hyp), list(ref))
    inversions = [op for op in alignment.costed_operations() if op.kind == "inversion"]
    assert len(inversions) == inverted
    assert all(op.cost == c_inv / denominator for op in inversions)
    assert alignment.cost() == pytest.approx(alignment.distance)
    assert alignment.distance == pytest.approx(measure.pair_distance(hyp, ref))


# --------------------------------------------------------------------------- TER


def sacrebleu_shifts(hyp: list[str], ref: list[str]) -> tuple[list[list[str]], str]:
    """sacreBLEU's own TER loop (``lib_ter.translation_edit_rate``), keeping the hypothesis
    after every shift and the final trace (its ``d`` consumes a hypothesis word, ``i`` a
    reference word)."""
    cached = lib_ter.BeamEditDistance(ref)
    states, checked = [], 0
    while True:
        delta, shifted, checked = lib_ter._shift(hyp, ref, cached, checked)
        if checked >= lib_ter._MAX_SHIFT_CANDIDATES or delta <= 0:
            break
        states.append(shifted)
        hyp = shifted
    return states, cached(hyp)[1]


TRACE_LETTERS = {"match": " ", "substitute": "s", "delete": "d", "insert": "i"}

TER_PAIRS = [
    ("d e f g h a b c", "a b c d e f g h"),
    ("the cat the mat sat on", "the cat sat on the mat"),
    ("on the mat the cat sat", "the cat sat on the mat"),
    ("a b c x y z d e f", "d e f x y z a b c"),
    ("we will meet at noon in the lobby", "we will meet in the lobby at twelve o'clock"),
    ("b a", "a b"),
    ("", "a b"),
    ("a b", ""),
]


@pytest.mark.parametrize(("hyp", "ref"), TER_PAIRS)
def test_ter_shifts_follow_sacrebleu(hyp: str, ref: str) -> None:
    """The shifts in tercom's order (each a block, its start and its target in the
    hypothesis before it), the shifted hypothesis and the path equal sacreBLEU's."""
    alignment = TER().align(hyp, ref)
    shifts = alignment.extras["shifts"]
    assert alignment.cost() == alignment.distance
    if not ref:
        assert alignment.distance == len(hyp.split()) and not shifts
        return
    states, trace = sacrebleu_shifts(hyp.split(), ref.split())
    current = hyp.split()
    for shift, state in zip(shifts, states, strict=True):
        block = current[shift.start : shift.start + shift.length]
        assert shift.words == block
        assert lib_ter._perform_shift(current, shift.start, shift.length, shift.target) == state
        current = state
    assert alignment.extras["shifted_hyp"] == current
    assert [hyp.split()[k] for k in alignment.extras["shifted_positions"]] == current
    assert "".join(TRACE_LETTERS[op.kind] for op in alignment.operations) == trace
    charged = alignment.costed_operations()
    assert [op.kind for op in charged[: len(shifts)]] == ["shift"] * len(shifts)
    assert lib_ter.translation_edit_rate(hyp.split(), ref.split())[0] == alignment.distance


def test_ter_shift_vector_of_sacrebleu_has_one_shift() -> None:
    """sacreBLEU's test vector: 1 edit over 8 words, and it is a shift of `a b c`."""
    alignment = TER().align("d e f g h a b c", "a b c d e f g h")
    (shift,) = [op for op in alignment.costed_operations() if op.cost]
    assert shift.kind == "shift" and shift.hyp_span == (5, 8) and shift.detail["to"] == 0


# --------------------------------------------------------------------------- m-PER, skip PER

PLANE = ("I prefer the plane", "I like the plane")


@pytest.mark.parametrize(
    ("order", "pad", "distance", "count"),
    [(1, "none", 1, 4), (2, "none", 2, 3), (2, "both", 2, 5), (3, "none", 2, 2)]
    + [(3, "both", 3, 6), (4, "none", 1, 1), (4, "both", 4, 7)],
)
def test_mper_matching_of_spec_6_5(order: int, pad: str, distance: int, count: int) -> None:
    measure = MPER(tokenize="none", min_ngram=order, max_ngram=order, pad_rule=pad)
    alignment = measure.align(*PLANE)
    assert alignment.distance == alignment.cost() == distance
    (matching,) = alignment.extras["matching"]
    assert (matching["distance"], matching["reference_length"]) == (distance, count)
    for op in alignment.operations:
        assert op.detail["order"] == order
        if op.kind == "match":
            assert op.detail["hyp_ngram"] == op.detail["ref_ngram"]
        if op.kind == "substitute":
            assert op.detail["hyp_ngram"] != op.detail["ref_ngram"]


def test_mper_orders_1_to_4_of_spec_6_5() -> None:
    """Combined (1..4), pad both: d = 1 + 2 + 3 + 4 = 10 over 4 + 5 + 6 + 7 = 22."""
    alignment = MPER(tokenize="none", min_ngram=1, max_ngram=4, pad_rule="both").align(*PLANE)
    assert (alignment.distance, alignment.extras["reference_length"]) == (10, 22)
    assert [m["distance"] for m in alignment.extras["matching"]] == [1, 2, 3, 4]


@pytest.mark.parametrize(
    ("skip", "pad", "distance", "count"),
    [(0, "none", 2, 3), (1, "none", 3, 5), (2, "none", 3, 6), (4, "none", 3, 6)]
    + [(0, "both", 2, 5), (1, "both", 4, 9), (2, "both", 5, 12), (4, "both", 5, 15)],
)
def test_skip_bigram_matching_of_spec_6_6(skip: int, pad: str, distance: int, count: int) -> None:
    measure = SkipBigramPER(tokenize="none", max_bigram_skip=skip, pad_rule=pad)
    alignment = measure.align(*PLANE)
    assert (alignment.distance, alignment.extras["reference_length"]) == (distance, count)
    assert alignment.cost() == distance


def test_skip_bigrams_of_figure_4_2() -> None:
    """Fig. 4.2: the skip bigrams of `I prefer the plane` with skip up to 2, no padding."""
    measure = SkipBigramPER(tokenize="none", max_bigram_skip=2, pad_rule="none")
    grams = [" ".join(gram) for gram, _ in measure.occurrences(PLANE[0].split(), 2)]
    assert sorted(grams) == sorted(
        ["I prefer", "prefer the", "the plane", "I the", "prefer plane", "I plane"]
    )


# --------------------------------------------------------------------------- several references

EDIT_MEASURES = [
    WER(tokenize="none"),
    WER(tokenize="none", substitution_cost_rule="prefix"),
    PER(tokenize="none"),
    MSDER(tokenize="none"),
    CDER(tokenize="none"),
    CDER(tokenize="none", direction="bidirectional", coverage_rule="half", pad_rule="none"),
    LJWER(tokenize="none"),
    INVWER(tokenize="none"),
    TER(),
    MPER(tokenize="none", min_ngram=1, max_ngram=3),
    MPER(tokenize="none", min_ngram=1, max_ngram=2, choose_references_separately=True),
    SkipBigramPER(tokenize="none", max_bigram_skip=2),
]


def test_lowest_error_aligns_against_r_star_not_the_nearest() -> None:
    """Spec §4.1: lowestError takes d(E, r*) for r* = argmin D_r / L_r, the other rules the
    least distance: here D = (4, 3), L = (8, 2)."""
    hyp, refs = "a b c d", ["a b c d e f g h", "a x"]
    for rule, reference, distance, length in [
        ("lowestError", 0, 4, 8),
        ("minimum", 1, 3, 2),
        ("average", 1, 3, 5),
        ("maximumNearest", 1, 3, 2),
    ]:
        measure = WER(tokenize="none", ref_length_rule=rule)
        alignment = measure.align_refs(hyp, refs)
        assert (
            alignment.extras["reference"] == reference and alignment.ref == refs[reference].split()
        )
        assert (alignment.distance, alignment.extras["reference_length"]) == (distance, length)
        assert statistics_row(measure, hyp, refs)[:2] == [distance, length]


@settings(max_examples=60, deadline=None)
@given(sentences, st.lists(sentences, min_size=1, max_size=3), st.sampled_from(DISTANCE_RULES))
def test_align_refs_reproduces_the_statistics_row(hyp: str, refs: list[str], rule: str) -> None:
    for measure in EDIT_MEASURES:
        if "ref-length-rule" in measure.options:
            measure = type(measure)(**{**measure.values, "ref-length-rule": rule})
        alignment = measure.align_refs(hyp, refs)
        row = statistics_row(measure, hyp, refs)
        assert alignment.distance == pytest.approx(row[0]), measure.name
        assert alignment.extras["reference_length"] == pytest.approx(row[1]), measure.name
        assert alignment.cost() == pytest.approx(alignment.distance), measure.name
        assert 0 <= alignment.extras["reference"] < len(refs)


def test_align_refs_needs_a_reference() -> None:
    for measure in (WER(), MPER()):
        with pytest.raises(MeasureError, match="no reference"):
            measure.align_refs("a b", [])


def test_alignment_as_dict_keeps_the_fields_and_adds_charged_operations() -> None:
    data = TER().align("b a c", "a b c").as_dict()
    assert {"measure", "hyp", "ref", "distance", "operations", "grid", "extras"} <= set(data)
    assert set(data["operations"][0]) >= {
        "kind",
        "hyp_index",
        "ref_index",
        "cost",
        "source",
        "target",
    }
    assert data["charged_operations"][0]["kind"] == "shift"


def test_alignment_cost_is_the_operations_sum_by_default() -> None:
    alignment = Alignment(
        "x", [], [], 2.0, [EditOp("insert", None, 0, 1.0), EditOp("insert", None, 1, 1.0)]
    )
    assert alignment.costed_operations() is alignment.operations and alignment.cost() == 2.0


def test_every_kind_is_documented() -> None:
    from metrics.core.alignment import EDIT_KINDS
    from metrics.core.alignment_records import OPERATION_NAMES

    assert set(OPERATION_NAMES) == set(EDIT_KINDS)
    assert len(set(itertools.chain(OPERATION_NAMES.values()))) == len(EDIT_KINDS)
