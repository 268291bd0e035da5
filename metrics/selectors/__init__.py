"""Reads of the metrics app, one module per job; import from the module.

* ``runs``: run lists, what of a run is stored, progress, result tables, the per-segment
  arrays (``segment_arrays``) and sentence rows;
* ``texts``: test sets and their texts (sources, references in label order, candidates);
* ``reports``: the plain data of the EvalTrans XML report (``run_report_data``).
"""
