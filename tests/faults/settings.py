"""Settings of the web server and worker processes that the fault tests start.

The test settings (same secret key and password hashers as the test process, so a session
made there is valid here), with real Celery instead of eager tasks, and a worker heartbeat
and stalled threshold the tests can set through the environment (the production values,
15 s and 60 s, would make the tests wait minutes).
"""

import os

from evaltrans.settings.test import *  # noqa: F403

CELERY_TASK_ALWAYS_EAGER = False
CELERY_TASK_EAGER_PROPAGATES = False
METRICS_WORKER_HEARTBEAT_S = float(os.environ.get("FAULTS_HEARTBEAT_S", "15"))
METRICS_STALLED_AFTER_S = float(os.environ.get("FAULTS_STALLED_AFTER_S", "60"))
