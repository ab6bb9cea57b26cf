"""The rater's writes, each one transaction: `queue` (claim the next item, skip), `leases`
(how long a claim runs, which assignments hold a slot, reviving and expiring lapsed claims), `ratings`
(drafts and submissions), `policy` (where a submitted item goes next), `editing` (changes after
submission, giving a claim back).

Locking rule (every review write, here and in `annotation.inspection.services`): every change to
which assignments hold an item's slots (claim, lapse, draft revival, skip, submit, inspection)
happens while holding that item's row lock (`annotation.locks`, `select_for_update`), so the slot
count read under the lock is the truth. On SQLite these are no-ops, but SQLite serialises writing
transactions anyway.
"""
