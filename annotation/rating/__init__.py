"""Rating: what a physician does. The queue, claiming the next item (with a lease), the rating
screen, drafts, submitting (and submit-and-next), editing a submitted item until its inspection
starts, undo, stop for the day. URLs: `urls.py`; pages: `views.py` (context in `screen.py`); API:
`api.py`; reads: `selectors.py`; writes: `services/`.
"""
