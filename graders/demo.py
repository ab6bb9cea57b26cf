"""Demo grader configurations for `manage.py load_demo`."""

from typing import TextIO


def load_demo_graders(*, stdout: TextIO) -> None:
    """Create the demo grader configurations; called by load_demo after the demo data exists."""
