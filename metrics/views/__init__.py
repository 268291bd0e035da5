"""Pages of the metrics app, one module per page family; ``metrics.urls`` imports the modules.

* ``runs``: run list, start form, run page, live progress, cancel, sentence scores;
* ``downloads``: the XML report and the results as JSON or CSV.
"""
