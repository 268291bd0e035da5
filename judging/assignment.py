"""Pure assignment planning: which judge scores which item, on which screen, in which order.

No database here, so the invariants are easy to prove with property tests:

* every item gets exactly ``needed`` distinct judges, none of them excluded for it;
* a judge gets an item at most once, apart from planted repeats and planted bad references
  (a degraded copy of a judge's own one-item screen, WMT DA), which come after the original;
* work is balanced: greedy least-loaded choice keeps the judges' item counts within the size
  of the largest unit of each other (1 for one-candidate screens) when nobody is excluded;
* the plan depends only on its inputs and the seed.

A *unit* is what is assigned together: one item for one-candidate screens, or every item of one
source for the grouped presentation (each judge's screen then shows the unit's items they got).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

ERROR_TOO_FEW_JUDGES = (
    "Item {item} needs {needed} judges but only {available} judges may judge it; "
    "add judges or lower the number of judges per item."
)

# Planted repeats come at least this many screens after their original when the order allows,
# so the judge does not recognise the item from the screen before.
REPEAT_MIN_GAP = 5


class PlanError(ValueError):
    """The campaign cannot be assigned as asked; the message is for users."""


@dataclass(frozen=True)
class PlanItem:
    """An item to assign: its id, how many new judges it needs, and judges who may not judge
    it (they judged the same text before, in a campaign whose judgments are reused)."""

    item_id: int
    needed: int
    excluded: frozenset[int] = frozenset()


@dataclass
class PlannedScreen:
    """A screen of a judge's order. A bad-reference screen names the item it degrades: the
    caller stores the degraded copy of that item in its place."""

    item_ids: list[int]
    is_repeat: bool = False
    is_bad_reference: bool = False


@dataclass
class Plan:
    screens: dict[int, list[PlannedScreen]] = field(default_factory=dict)

    def load(self, judge: int) -> int:
        return sum(
            len(screen.item_ids)
            for screen in self.screens[judge]
            if not screen.is_repeat and not screen.is_bad_reference
        )

    def degraded(self) -> set[int]:
        """Items of which some judge gets a bad reference."""
        return {
            screen.item_ids[0]
            for screens in self.screens.values()
            for screen in screens
            if screen.is_bad_reference
        }


def plan_assignments(
    *,
    units: list[list[PlanItem]],
    judges: list[int],
    seed: int,
    repeat_share: float = 0.0,
    bad_reference_share: float = 0.0,
    degradable: frozenset[int] = frozenset(),
) -> Plan:
    """Assign every item of ``units`` to its needed number of distinct judges.

    Args:
        units: groups of items shown together (one item each for one-candidate screens).
        judges: ids of the campaign's judges.
        seed: seed of every random choice (tie breaks, orders, repeats).
        repeat_share: share of each judge's screens planted again later in their order.
        bad_reference_share: share of each judge's one-item screens of a ``degradable`` item
            followed, later in their order, by a degraded copy of that item.
        degradable: items that may get a bad reference (candidates, not references).

    Returns:
        The plan: per judge, their screens in order.

    Raises:
        PlanError: an item needs more judges than may judge it.
    """
    rng = random.Random(seed)
    judges = sorted(set(judges))
    load = dict.fromkeys(judges, 0)
    given: dict[int, list[list[int]]] = {judge: [] for judge in judges}
    order = list(range(len(units)))
    rng.shuffle(order)
    for index in order:
        unit = [item for item in units[index] if item.needed > 0]
        if unit:
            for judge, item_ids in _assign_unit(unit, judges, load, rng).items():
                given[judge].append(item_ids)
    plan = Plan()
    for judge in judges:
        screens = [PlannedScreen(item_ids=items) for items in given[judge]]
        rng.shuffle(screens)
        for screen in screens:
            rng.shuffle(screen.item_ids)
        screens = _plant_repeats(screens, repeat_share, rng)
        plan.screens[judge] = _plant_bad_references(screens, bad_reference_share, degradable, rng)
    return plan


def _assign_unit(
    unit: list[PlanItem], judges: list[int], load: dict[int, int], rng: random.Random
) -> dict[int, list[int]]:
    """Pick the least-loaded eligible judges for a unit, then give each item its judges among
    them; a judge excluded for one item of a source is kept off the whole source."""
    excluded = frozenset().union(*(item.excluded for item in unit))
    eligible = [judge for judge in judges if judge not in excluded]
    wanted = max(item.needed for item in unit)
    if len(eligible) < wanted:
        worst = max(unit, key=lambda item: item.needed)
        raise PlanError(
            ERROR_TOO_FEW_JUDGES.format(item=worst.item_id, needed=wanted, available=len(eligible))
        )
    tie = {judge: rng.random() for judge in eligible}
    chosen = sorted(eligible, key=lambda judge: (load[judge], tie[judge]))[:wanted]
    result: dict[int, list[int]] = {}
    for item in unit:
        for judge in sorted(chosen, key=lambda judge: (load[judge], tie[judge]))[: item.needed]:
            result.setdefault(judge, []).append(item.item_id)
            load[judge] += 1
    return result


def _plant_repeats(
    screens: list[PlannedScreen], share: float, rng: random.Random
) -> list[PlannedScreen]:
    """Copies of ``round(share * len(screens))`` screens, each inserted after its original."""
    count = min(len(screens), round(share * len(screens)))
    if count == 0:
        return screens
    originals = rng.sample(range(len(screens)), count)
    result = list(screens)
    # Insert from the last original backwards so earlier positions stay valid; each copy goes
    # somewhere after its original, REPEAT_MIN_GAP screens later when the order is long enough.
    for position in sorted(originals, reverse=True):
        earliest = min(position + 1 + REPEAT_MIN_GAP, len(result))
        slot = rng.randint(earliest, len(result))
        copy = PlannedScreen(item_ids=list(screens[position].item_ids), is_repeat=True)
        rng.shuffle(copy.item_ids)
        result.insert(slot, copy)
    return result


def _plant_bad_references(
    screens: list[PlannedScreen], share: float, degradable: frozenset[int], rng: random.Random
) -> list[PlannedScreen]:
    """A degraded copy after ``round(share * n)`` of the ``n`` original one-item screens of a
    degradable item (WMT: 10 bad references per 70 system outputs), placed like repeats."""
    originals = [
        position
        for position, screen in enumerate(screens)
        if not screen.is_repeat and len(screen.item_ids) == 1 and screen.item_ids[0] in degradable
    ]
    count = min(len(originals), round(share * len(originals)))
    if count == 0:
        return screens
    result = list(screens)
    for position in sorted(rng.sample(originals, count), reverse=True):
        earliest = min(position + 1 + REPEAT_MIN_GAP, len(result))
        slot = rng.randint(earliest, len(result))
        bad = PlannedScreen(item_ids=list(screens[position].item_ids), is_bad_reference=True)
        result.insert(slot, bad)
    return result
