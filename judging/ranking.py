"""Relative ranking (WMT 2007-2016): pairwise comparisons, Expected Wins, win tables and the
agreement of judges on pairs. Pure functions, no database (the selectors feed them).

A judge ranks the 2-5 candidates of one screen from 1 (best) to 5 (worst), ties allowed. Every
pair of candidates on the screen is a comparison: the lower rank wins, equal ranks tie. A
candidate stands for every system with that exact output (one judging item), so each of its
systems is compared with each system of the other candidate; two systems of one candidate are
*not* compared with each other (their outputs are identical, the judge made no choice).

Scores (Callison-Burch et al. 2012, Bojar et al. 2013):

* **Expected Wins** (WMT 2013, after Koehn 2012; :func:`expected_wins`): the probability
  that system *i* is ranked better than an opponent drawn at random, over non-tie comparisons::

      EW(S_i) = 1/|O_i| * sum_{j in O_i} win(S_i, S_j) / (win(S_i, S_j) + win(S_j, S_i))

  Ties are ignored. ``O_i`` are the opponents *i* has at least one non-tie comparison with
  (WMT averages over all other systems; with full coverage the two are the same, and an
  opponent met only in ties has no defined ratio, so it is left out rather than counted as 0).
* **Ratio of wins** (WMT 2012, "> others" after Bojar et al. 2011; :func:`wins_ratio`): pooled
  over all the system's comparisons, ``sum_j win(S_i, S_j) / sum_j (win + loss)``, ties
  excluded. It weights opponents by how often they were met; Expected Wins weights them equally.

Agreement (:func:`pairwise_kappa`): WMT 2013's Cohen's kappa on the outcome of a pair of
systems (<, =, >) for one segment, between two judgments of the same pair:
``kappa = (P(A) - P(E)) / (1 - P(E))``, ``P(A)`` the share of agreeing judgment pairs and
``P(E) = P(=)^2 + P(<)^2 + P(>)^2`` with ``P(=)`` the share of ties among all comparisons and
``P(<) = P(>) = (1 - P(=)) / 2`` (the order of a pair is arbitrary), as Appraise's
``compute_agreement_scores.py`` computes it for WMT.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

BETTER = "<"
"""Outcome: the first system of the pair is better (a lower rank), WMT's ``A>B``."""
TIE = "="
WORSE = ">"
OUTCOMES = (BETTER, TIE, WORSE)


@dataclass(frozen=True)
class Comparison:
    """One judge's comparison of two systems on one segment. ``better`` and ``worse`` are the
    winner and loser; for a tie they are the two systems in name order."""

    segment_id: str
    judge: str
    better: str
    worse: str
    tie: bool = False
    is_repeat: bool = False
    screen_key: str = ""
    """Which ranking the comparison comes from (judge, screen), e.g. for Kendall-style use."""

    @property
    def pair(self) -> tuple[str, str]:
        """The two systems in name order."""
        return (self.better, self.worse) if self.better <= self.worse else (self.worse, self.better)

    @property
    def outcome(self) -> str:
        """The outcome for :attr:`pair` (its first system <, = or > its second)."""
        if self.tie:
            return TIE
        return BETTER if self.better == self.pair[0] else WORSE


@dataclass(frozen=True)
class RankedCandidate:
    """A candidate of a ranking screen: the systems it stands for and the rank it got."""

    systems: tuple[str, ...]
    rank: int


def comparisons_from_ranking(
    candidates: Sequence[RankedCandidate],
    *,
    segment_id: str,
    judge: str,
    is_repeat: bool = False,
    screen_key: str = "",
) -> list[Comparison]:
    """Every pairwise comparison of one ranking (module docstring): for each pair of
    candidates, each system of one against each system of the other."""
    result = []
    for first, second in combinations(candidates, 2):
        for a in first.systems:
            for b in second.systems:
                if a == b:
                    continue
                if first.rank == second.rank:
                    better, worse = sorted((a, b))
                    tie = True
                elif first.rank < second.rank:
                    better, worse, tie = a, b, False
                else:
                    better, worse, tie = b, a, False
                result.append(
                    Comparison(
                        segment_id=segment_id,
                        judge=judge,
                        better=better,
                        worse=worse,
                        tie=tie,
                        is_repeat=is_repeat,
                        screen_key=screen_key,
                    )
                )
    return result


@dataclass
class WinCell:
    """Row system against column system: its wins, losses and ties."""

    wins: int = 0
    losses: int = 0
    ties: int = 0

    @property
    def decided(self) -> int:
        return self.wins + self.losses

    @property
    def ratio(self) -> float | None:
        """wins / (wins + losses), None when every comparison was a tie (or none was made)."""
        return self.wins / self.decided if self.decided else None


@dataclass
class WinTable:
    """System x system table of :class:`WinCell`; ``cells[a][b]`` is a against b."""

    systems: list[str]
    cells: dict[str, dict[str, WinCell]] = field(default_factory=dict)

    def cell(self, a: str, b: str) -> WinCell:
        return self.cells[a][b]

    def rows(self) -> list[tuple[str, list[WinCell | None]]]:
        """For templates: each system with its cells in column order (None on the diagonal)."""
        return [
            (a, [None if a == b else self.cells[a][b] for b in self.systems]) for a in self.systems
        ]


def win_table(comparisons: Iterable[Comparison], systems: Iterable[str] = ()) -> WinTable:
    """Wins, losses and ties of every system against every other (both directions filled:
    a's wins against b are b's losses against a). ``systems`` adds systems never compared."""
    comparisons = list(comparisons)
    names = set(systems)
    for comparison in comparisons:
        names.update((comparison.better, comparison.worse))
    ordered = sorted(names)
    table = WinTable(
        systems=ordered, cells={a: {b: WinCell() for b in ordered if b != a} for a in ordered}
    )
    for comparison in comparisons:
        a, b = comparison.better, comparison.worse
        if comparison.tie:
            table.cells[a][b].ties += 1
            table.cells[b][a].ties += 1
        else:
            table.cells[a][b].wins += 1
            table.cells[b][a].losses += 1
    return table


@dataclass(frozen=True)
class SystemWins:
    """A system's ranking scores and the counts behind them."""

    system: str
    expected_wins: float | None
    wins_ratio: float | None
    wins: int
    losses: int
    ties: int
    opponents: int
    """Opponents with at least one non-tie comparison (the Expected Wins average runs over them)."""

    @property
    def comparisons(self) -> int:
        return self.wins + self.losses + self.ties


def expected_wins(table: WinTable, system: str) -> float | None:
    """WMT 2013's Expected Wins of ``system`` (module docstring); None without any non-tie
    comparison."""
    ratios = [cell.ratio for other, cell in table.cells[system].items() if cell.ratio is not None]
    return sum(ratios) / len(ratios) if ratios else None


def wins_ratio(table: WinTable, system: str) -> float | None:
    """WMT 2012's pooled ratio of wins, ties excluded (module docstring); None without any
    non-tie comparison."""
    wins = sum(cell.wins for cell in table.cells[system].values())
    decided = sum(cell.decided for cell in table.cells[system].values())
    return wins / decided if decided else None


def system_wins(table: WinTable) -> list[SystemWins]:
    """Every system's scores, best Expected Wins first (systems without a score last, then by
    name)."""
    rows = []
    for system in table.systems:
        cells = table.cells[system].values()
        rows.append(
            SystemWins(
                system=system,
                expected_wins=expected_wins(table, system),
                wins_ratio=wins_ratio(table, system),
                wins=sum(cell.wins for cell in cells),
                losses=sum(cell.losses for cell in cells),
                ties=sum(cell.ties for cell in cells),
                opponents=sum(1 for cell in cells if cell.decided),
            )
        )
    rows.sort(key=lambda row: (row.expected_wins is None, -(row.expected_wins or 0.0), row.system))
    return rows


@dataclass(frozen=True)
class PairKappa:
    """Agreement on pairwise outcomes: P(A), P(E) and kappa over ``pairs`` judgment pairs."""

    p_agree: float | None
    p_chance: float | None
    kappa: float | None
    pairs: int
    comparisons: int
    tie_share: float | None


def pairwise_kappa(comparisons: Iterable[Comparison], *, intra: bool = False) -> PairKappa:
    """WMT 2013's kappa on pairwise outcomes (module docstring).

    Inter-annotator (default): every two judgments of the same (segment, system pair) by
    *different* judges form a judgment pair; planted repeats are left out. Intra-annotator
    (``intra``): every two judgments of the same (segment, system pair) by the *same* judge
    (a planted repeat and its original). ``P(E)`` is computed from the tie share of all the
    comparisons given (repeats included for ``intra``). kappa is None when no judgment pair
    exists or ``P(E)`` is 1.
    """
    comparisons = [c for c in comparisons if intra or not c.is_repeat]
    if not comparisons:
        return PairKappa(None, None, None, 0, 0, None)
    tie_share = sum(1 for c in comparisons if c.tie) / len(comparisons)
    other = (1.0 - tie_share) / 2.0
    p_chance = tie_share**2 + 2 * other**2
    by_pair: dict[tuple[str, tuple[str, str]], list[Comparison]] = defaultdict(list)
    for comparison in comparisons:
        by_pair[(comparison.segment_id, comparison.pair)].append(comparison)
    agree = total = 0
    for judged in by_pair.values():
        for first, second in combinations(judged, 2):
            if (first.judge == second.judge) != intra:
                continue
            total += 1
            agree += first.outcome == second.outcome
    if not total:
        return PairKappa(None, p_chance, None, 0, len(comparisons), tie_share)
    p_agree = agree / total
    kappa = (p_agree - p_chance) / (1.0 - p_chance) if p_chance < 1.0 else None
    return PairKappa(p_agree, p_chance, kappa, total, len(comparisons), tie_share)
