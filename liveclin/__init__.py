"""LiveClin's quality check in one place (LiveClin Sec. 3.4, Appendix G; docs/review.md).

The Judge's pre-screen beside each question, the two screens of a question-set review (`phases.py`:
auditor, then examinee, plugged into the generic rating and inspection screens by `protocol.py`),
each set's outcome under the conservatism rule and the quality report (`quality/`), the team
composition, and the validated export (`quality/export.py`, `liveclin_validated`).

It sits above `agreement` and `graders` (it reads the Judge's verdicts and computes agreement
statistics) and registers itself into `annotation` at start-up (`apps.py`).
"""
