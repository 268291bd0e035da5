"""Writes of the metrics app, one module per job; import from the module.

* ``runs``: the life of a run: create, start, status changes, cancel, fail;
* ``dispatch``: the one place that sends Celery tasks (by task name), and the broker check;
* ``computation``: plan a run into chunk tasks, compute a chunk, aggregate the scores; the
  per-process caches of references and measure contexts;
* ``recovery``: resume active runs after a worker died or the broker was down;
* ``workers``: the workers' heartbeat, which tells a stalled run from a slow one.

Which measures a run computes (presets, options) is resolved in ``metrics.measure_choices``,
EvalTrans' batch options are parsed in ``metrics.batch_options`` and the reproducing command
line is rebuilt in ``metrics.command_line``; none of these touches the database.
"""
