"""Hypothesis strategies of word pairs for the LJWER and INVWER tests."""

from __future__ import annotations

from hypothesis import strategies as st

WORDS = st.lists(st.sampled_from("abc"), max_size=7).map(tuple)


@st.composite
def swapped_blocks(draw: st.DrawFn) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A reference and a candidate with two blocks swapped and maybe one word changed: pairs
    where d_LJ and d_inv fall below d_LEV, which random words rarely give."""
    ref = draw(st.lists(st.sampled_from("abcdefg"), min_size=2, max_size=8))
    cut = draw(st.integers(1, len(ref) - 1))
    hyp = ref[cut:] + ref[:cut]
    position = draw(st.integers(0, len(hyp) - 1))
    hyp[position] = draw(st.sampled_from("abx"))
    return tuple(hyp), tuple(ref)


PAIR = st.one_of(st.tuples(WORDS, WORDS), swapped_blocks())


PAIRS = st.lists(PAIR, min_size=1, max_size=6)
