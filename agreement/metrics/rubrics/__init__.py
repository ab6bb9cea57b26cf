"""Scores from rubric decisions (LiveMedBench, ClinConsensus): the case score, rubric accuracy,
Pass@tau and CACS@tau with tau calibrated from physicians (`rubric`, `coverage`), and how stable models'
rankings by those scores are between graders (`ranking`). Import from `agreement.metrics`."""
