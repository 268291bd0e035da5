"""Reads of the segment page and its grid view (issue 18: why did each measure score this
sentence as it did?), one module per job; import from the module.

* ``segment_page``: the segment page (``testset_segment``, ``segment_page``): the segment, its
  context and references, every system's candidate with its stored sentence scores
  (``score_columns``, ``stored_sentence_scores``, ``signature_options``);
* ``judgments``: every human judgment of the segment, raw and normalized per judge
  (``segment_judgments``);
* ``grid_page``: the grid view (``grid_page``, ``grid_request``, ``variant_key``,
  ``variant_title``, ``OPTION_PREFIX``, ``CDER_DIRECTIONS``);
* ``alignment_views``: one measure's alignment of one pair as the plain data
  ``metrics.charts.alignment`` draws (``alignment_view``);
* ``explanations``: the n-gram breakdown of BLEU, NIST and chrF (``explanations_for``);
* ``measures``: the measures these pages show and their names (``GRID_MEASURES``,
  ``EXPLAIN_MEASURES``, ``MEASURE_NAMES``).
"""
