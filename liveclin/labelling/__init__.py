"""Physician tasks over the AI's labels (LiveClin App. E and J): blind taxonomy assignment and the
label audit; their pages, API, services, inspection of disagreements and the accuracy reports."""
