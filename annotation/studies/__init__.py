"""Studies: what an admin sets up. Creating a study (item selection, tasks, raters per item,
eligibility, inspection policy), members and expert groups, items added later, start and close,
progress, physicians' labels imported from outside, and calibration rounds (`calibration/`).
URLs: `urls.py`; pages: `views.py`; API: `api.py`; reads: `selectors.py`; writes: `services.py`,
`groups.py`, `outside_labels.py`.
"""
