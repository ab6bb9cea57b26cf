"""Grader configurations and grading jobs (see graders/services.py)."""
