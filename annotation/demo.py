"""Demo review data for `manage.py load_demo`: a study over the demo cases with every task type."""

from typing import TextIO


def load_demo_review(*, stdout: TextIO) -> None:
    """Create the demo study; called by load_demo after the demo cases and users exist."""
