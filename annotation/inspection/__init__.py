"""Inspection: what a senior physician does. The triage queue, one item's labels side by side,
accept, adjudicate (the final label with a reason), return to the original annotator, and an item's
history. URLs: `urls.py`; pages: `views.py` (context and actions in `screen.py`); API: `api.py`;
reads: `selectors.py`, `triage.py`; writes: `services.py`.
"""
