"""Figures of the grid view: how a string measure aligned one candidate with one reference,
one module per job; import from the module.

Pure: the plain alignment views of
``metrics.selectors.segments.alignment_views.alignment_view`` in, plotly figure dicts (and a
tercom-style text) out (thesis Fig. 4.3, 4.4, 4.6).

* ``grid``: ``alignment_figure`` (the figure of any view) and the DP grid as a heat map with
  the path, co-optimal edges and CDER's coverage strip (``grid_figure``);
* ``per_matching``: PER's matching between two rows of words (``matching_figure``);
* ``invwer_blocks``: INVWER's BTG parse as nested rectangles (``block_figure``);
* ``ljwer_blocks``: LJWER's blocks shaded on the grid;
* ``ter_shifts``: TER's shifts, the candidate as written and shifted (``shift_figure``);
* ``text``: the tercom-style rendering (``alignment_text``, ``summary_line``);
* ``drawing``: what every figure shares: palette, operation names, word labels, axis ticks,
  hover texts, legend entries, plot height, identical-word dots.
"""
