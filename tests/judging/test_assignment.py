"""Property tests: the assignment invariants hold for random campaign shapes."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judging.assignment import REPEAT_MIN_GAP, PlanError, PlanItem, plan_assignments
from judging.models import AssignedItem, Campaign

from .conftest import toy_corpus


@st.composite
def campaign_shapes(draw, *, with_exclusions: bool = False):
    """Judges, units of items (sizes 1..5), judges per item, seed, repeat share."""
    judge_count = draw(st.integers(1, 8))
    judges = list(range(100, 100 + judge_count))
    needed = draw(st.integers(1, judge_count))
    unit_sizes = draw(st.lists(st.integers(1, 5), min_size=1, max_size=25))
    units, next_id = [], 1
    for size in unit_sizes:
        unit = []
        for _ in range(size):
            excluded = frozenset()
            if with_exclusions:
                pool = st.sets(st.sampled_from(judges), max_size=judge_count - needed)
                excluded = frozenset(draw(pool))
            unit.append(PlanItem(next_id, needed, excluded))
            next_id += 1
        units.append(unit)
    seed = draw(st.integers(0, 2**32))
    share = draw(st.sampled_from([0.0, 0.05, 0.2, 0.5]))
    return judges, units, seed, share


@st.composite
def reuse_shapes(draw):
    """Campaign shapes as reuse leaves them: each item needs its own number of new judges
    (0 when earlier judgments cover it) and some judges are excluded for some items (they
    judged the text before; only *returning* judges, who took part in earlier campaigns, can
    be). Always feasible: a unit's items together exclude at most the judges its neediest item
    can spare."""
    judge_count = draw(st.integers(1, 8))
    judges = list(range(100, 100 + judge_count))
    returning = sorted(draw(st.sets(st.sampled_from(judges), max_size=judge_count - 1)))
    unit_sizes = draw(st.lists(st.integers(1, 5), min_size=1, max_size=25))
    units, next_id = [], 1
    for size in unit_sizes:
        off_limits = draw(st.sets(st.sampled_from(returning))) if returning else set()
        most = judge_count - len(off_limits)
        unit = []
        for _ in range(size):
            excluded = draw(st.sets(st.sampled_from(sorted(off_limits)))) if off_limits else set()
            unit.append(PlanItem(next_id, draw(st.integers(0, most)), frozenset(excluded)))
            next_id += 1
        units.append(unit)
    seed = draw(st.integers(0, 2**32))
    share = draw(st.sampled_from([0.0, 0.05, 0.2, 0.5]))
    return judges, units, seed, share


def originals(plan, judge):
    return [
        item for screen in plan.screens[judge] if not screen.is_repeat for item in screen.item_ids
    ]


@settings(max_examples=300, deadline=None)
@given(campaign_shapes())
def test_every_item_gets_exactly_the_needed_distinct_judges(shape):
    judges, units, seed, share = shape
    plan = plan_assignments(units=units, judges=judges, seed=seed, repeat_share=share)
    judged_by = Counter()
    for judge in judges:
        items = originals(plan, judge)
        assert len(items) == len(set(items)), "a judge got an item twice"
        judged_by.update(items)
    for unit in units:
        for item in unit:
            assert judged_by[item.item_id] == item.needed


@settings(max_examples=300, deadline=None)
@given(campaign_shapes())
def test_work_is_balanced_within_the_largest_unit(shape):
    judges, units, seed, share = shape
    plan = plan_assignments(units=units, judges=judges, seed=seed, repeat_share=share)
    loads = [plan.load(judge) for judge in judges]
    largest = max(len(unit) for unit in units)
    assert max(loads) - min(loads) <= largest


@settings(max_examples=300, deadline=None)
@given(campaign_shapes())
def test_repeats_follow_their_original_and_have_the_asked_share(shape):
    judges, units, seed, share = shape
    plan = plan_assignments(units=units, judges=judges, seed=seed, repeat_share=share)
    for judge in judges:
        screens = plan.screens[judge]
        firsts = [screen for screen in screens if not screen.is_repeat]
        repeats = [screen for screen in screens if screen.is_repeat]
        assert len(repeats) == min(len(firsts), round(share * len(firsts)))
        # A copy comes REPEAT_MIN_GAP screens after its original when the order allows.
        first_index = {id(screen): number for number, screen in enumerate(firsts)}
        position_of = {}
        for position, screen in enumerate(screens):
            for item in screen.item_ids:
                if not screen.is_repeat:
                    position_of[item] = (position, first_index[id(screen)])
                    continue
                assert item in position_of, "a repeat before its original"
                original, index = position_of[item]
                assert position - original >= min(REPEAT_MIN_GAP + 1, len(firsts) - index)
        repeated = Counter(item for screen in repeats for item in screen.item_ids)
        assert all(count == 1 for count in repeated.values()), "an item repeated twice"


@settings(max_examples=200, deadline=None)
@given(campaign_shapes(with_exclusions=True))
def test_excluded_judges_never_get_the_item(shape):
    judges, units, seed, share = shape
    try:
        plan = plan_assignments(units=units, judges=judges, seed=seed, repeat_share=share)
    except PlanError:
        # A grouped unit keeps judges excluded for any of its items off the whole unit,
        # so it may run out of judges; the error names the item.
        return
    excluded = {item.item_id: item.excluded for unit in units for item in unit}
    counts = Counter()
    for judge in judges:
        for item in originals(plan, judge):
            assert judge not in excluded[item]
            counts[item] += 1
    assert all(counts[item.item_id] == item.needed for unit in units for item in unit)


@settings(max_examples=100, deadline=None)
@given(campaign_shapes())
def test_the_plan_depends_only_on_the_inputs_and_the_seed(shape):
    judges, units, seed, share = shape
    first = plan_assignments(units=units, judges=judges, seed=seed, repeat_share=share)
    second = plan_assignments(
        units=units, judges=list(reversed(judges)), seed=seed, repeat_share=share
    )
    assert first == second


@settings(max_examples=300, deadline=None)
@given(reuse_shapes())
def test_varying_needs_and_exclusions_give_each_item_exactly_its_judges(shape):
    judges, units, seed, share = shape
    plan = plan_assignments(units=units, judges=judges, seed=seed, repeat_share=share)
    judged_by = {item.item_id: [] for unit in units for item in unit}
    for judge in judges:
        items = originals(plan, judge)
        assert len(items) == len(set(items)), "a judge got an item twice"
        for item in items:
            judged_by[item].append(judge)
    for unit in units:
        for item in unit:
            assert len(judged_by[item.item_id]) == item.needed
            assert not set(judged_by[item.item_id]) & item.excluded
    # An item that needs nobody new (fully covered by reused judgments) is on no screen.
    shown = {item for judge in judges for screen in plan.screens[judge] for item in screen.item_ids}
    assert shown == {item.item_id for unit in units for item in unit if item.needed}


@settings(max_examples=300, deadline=None)
@given(reuse_shapes())
def test_varying_needs_and_exclusions_keep_work_balanced(shape):
    """Judges excluded from nothing stay within the largest unit of each other, and nobody
    gets more than the largest unit above the least-loaded of them: exclusions only take
    work away from a judge."""
    judges, units, seed, share = shape
    plan = plan_assignments(units=units, judges=judges, seed=seed, repeat_share=share)
    largest = max(len(unit) for unit in units)
    excluded = set().union(*(item.excluded for unit in units for item in unit))
    free = [plan.load(judge) for judge in judges if judge not in excluded]
    assert free, "the shapes always keep a judge who is new to every text"
    assert max(free) - min(free) <= largest
    assert all(plan.load(judge) <= min(free) + largest for judge in judges)


@settings(max_examples=200, deadline=None)
@given(reuse_shapes())
def test_varying_needs_keep_repeats_and_determinism(shape):
    judges, units, seed, share = shape
    plan = plan_assignments(units=units, judges=judges, seed=seed, repeat_share=share)
    assert plan == plan_assignments(
        units=units, judges=list(reversed(judges)), seed=seed, repeat_share=share
    )
    for judge in judges:
        firsts = [screen for screen in plan.screens[judge] if not screen.is_repeat]
        repeats = [screen for screen in plan.screens[judge] if screen.is_repeat]
        assert len(repeats) == min(len(firsts), round(share * len(firsts)))
        assert {item for screen in repeats for item in screen.item_ids} <= set(
            originals(plan, judge)
        )


def test_too_few_judges_is_an_error_naming_the_item():
    with pytest.raises(PlanError, match="Item 1 needs 3 judges but only 2"):
        plan_assignments(units=[[PlanItem(1, 3)]], judges=[1, 2], seed=0)


# -- the same invariants through the database, for random campaign shapes on the toy corpus --


@pytest.mark.django_db
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    judges_per_item=st.integers(1, 3),
    presentation=st.sampled_from(list(Campaign.Presentation)),
    repeat_share=st.sampled_from([0.0, 0.3]),
    with_reference=st.booleans(),
    seed=st.integers(0, 10**6),
)
def test_stored_assignments_keep_the_invariants(
    test_set, judges, judges_per_item, presentation, repeat_share, with_reference, seed
):
    from judging.services import campaign_create

    campaign = campaign_create(
        name=f"prop-{seed}-{Campaign.objects.count()}",
        test_set=test_set,
        systems=list(test_set.systems.all()),
        judges=judges,
        judges_per_item=judges_per_item,
        presentation=presentation,
        repeat_share=repeat_share,
        reference_as_system="A" if with_reference else "",
        seed=seed,
    )
    rows = list(
        AssignedItem.objects.filter(item__campaign=campaign).values(
            "item_id", "assignment__judge_id", "is_repeat", "screen", "item__segment_id"
        )
    )
    first = [row for row in rows if not row["is_repeat"]]
    per_item = Counter(row["item_id"] for row in first)
    assert set(per_item.values()) == {judges_per_item}
    assert per_item.keys() == set(campaign.items.values_list("pk", flat=True))
    pairs = Counter((row["item_id"], row["assignment__judge_id"]) for row in first)
    assert set(pairs.values()) == {1}
    if presentation == Campaign.Presentation.GROUPED:
        screens = {}
        for row in rows:
            key = (row["assignment__judge_id"], row["screen"])
            screens.setdefault(key, set()).add(row["item__segment_id"])
        assert all(len(segments) == 1 for segments in screens.values())
    # Identical outputs are one item: never more items than distinct texts per segment.
    texts = sum(
        len(
            set(segment.candidates.values())
            | ({segment.references["A"]} if with_reference else set())
        )
        for segment in toy_corpus().segments
    )
    assert campaign.items.count() == texts
