"""WSGI entry point (gunicorn evaltrans.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evaltrans.settings.prod")
application = get_wsgi_application()
