"""Outcomes: what stands after review and what is made of it. Final labels (`final_labels.py`, the one
rule), every field with its ratings and decision (`selectors.py`), long-format label exports, the
audit trail's exports (`audit.py`), effort and cost, curated releases (`curation/`). It reads review
state and never writes it (its only writes are curations, the hourly rate and export events).
"""
