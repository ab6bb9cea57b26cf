#!/usr/bin/env python
"""Django's command-line utility for medreview."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "medreview.settings")
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        settings.INSTALLED_APPS  # noqa: B018 - reads the environment now, so a bad setting is one line
    except ImproperlyConfigured as exc:
        sys.exit(f"medreview: configuration error: {exc}")
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
