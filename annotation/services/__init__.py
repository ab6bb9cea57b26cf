"""Every review write that touches more than one row or needs a lock.

Modules, by topic (import from here; the public names below stay the package's API):
- `studies`: create a study, add items and members, start, close; item selection and sampling;
- `queue`: claim the next item, leases (renewal, revival, `lease_expire`), skip;
- `ratings`: save a draft, submit ratings;
- `labels`: labels checked against each field's scale; pairwise A/B order mapping;
- `inspection`: the inspection policy after submissions, accept, adjudicate, return; final labels;
- `groups`: expert groups by design (raters in groups A and B; the queue takes one of each);
- `locks`: the row-locking helpers (item first, then assignment) every write above uses.

Locking rule: every change to which assignments hold an item's slots (claim, lapse, draft revival,
skip, submit, inspection) happens while holding that item's row lock (`select_for_update`), so
the slot count read under the lock is the truth. On SQLite these are no-ops, but SQLite serialises
writing transactions anyway.
"""

from annotation.services.groups import study_set_rater_groups
from annotation.services.inspection import inspection_accept, inspection_adjudicate, inspection_return
from annotation.services.labels import pair_label_as_shown, pair_label_to_canonical
from annotation.services.queue import assignment_claim_next, assignment_skip, lease_expire
from annotation.services.ratings import assignment_save_draft, rating_submit
from annotation.services.studies import (
    ItemSelection,
    study_add_items,
    study_add_members,
    study_close,
    study_create,
    study_start,
)

__all__ = [
    "ItemSelection",
    "assignment_claim_next",
    "assignment_save_draft",
    "assignment_skip",
    "inspection_accept",
    "inspection_adjudicate",
    "inspection_return",
    "lease_expire",
    "pair_label_as_shown",
    "pair_label_to_canonical",
    "rating_submit",
    "study_add_items",
    "study_add_members",
    "study_close",
    "study_create",
    "study_set_rater_groups",
    "study_start",
]
