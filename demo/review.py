"""Demo review data for `manage.py load_demo`: running studies over the demo data for every task type.

Idempotent: a study that already exists (by name) is left alone, with whatever work it holds.
Pre-filled first-round ratings (by physician1 and physician2, through the services) give the
agreement reports data, including disagreements that land in the inspection queue.
"""

from __future__ import annotations

import random
from typing import TextIO

from django.contrib.auth import get_user_model

from annotation.catalogue import (
    ADVICE_QUALITY,
    CRITERION_VALIDITY,
    GRADER_RELIABILITY,
    LIKERT_MEDIC,
    MCQ_FACTUAL,
    MCQ_SOLVABILITY,
    NARRATIVE_QUALITY,
    PAIRWISE_PREFERENCE,
)
from annotation.fields import Field, item_fields
from annotation.models import Assignment, Study, StudyMember
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from annotation.studies.services import ItemSelection, study_add_members, study_create, study_start
from graders.models import GraderDecision

GUIDELINES = """Rate each item independently; you will not see the other physician's labels.

* Read the whole case before rating. Use the descriptions next to each label.
* Press the shortcut shown on a label to pick it; `j` / `k` move between fields; Enter submits.
* Add a comment whenever your label is not the best one on the scale.
* Skip (with a reason) items outside your competence.
"""

# name, task slugs, selection, options, share of items to pre-fill with two raters
DEMO_STUDIES: list[tuple[str, list[str], ItemSelection, dict, float]] = [
    ("Demo: LiveMedBench human validation", [NARRATIVE_QUALITY.slug, ADVICE_QUALITY.slug, CRITERION_VALIDITY.slug],
     ItemSelection(kind="case", dataset="LiveMedBench"), {"inspect_share": 0.2}, 0.6),
    ("Demo: grader reliability", [GRADER_RELIABILITY.slug],
     ItemSelection(kind="response", dataset="LiveMedBench"), {}, 0.5),
    ("Demo: LiveClin question sets", [MCQ_FACTUAL.slug, MCQ_SOLVABILITY.slug],
     ItemSelection(kind="question_set", dataset="LiveClin"),
     {"inspect_all": True, "show_prescreen": True, "min_inspector_rank": "associate_chief"}, 0.0),
    ("Demo: MEDIC Likert axes", [LIKERT_MEDIC.slug],
     ItemSelection(kind="response", dataset="LiveMedBench", sample_n=4, seed=11), {}, 0.0),
    ("Demo: pairwise preference", [PAIRWISE_PREFERENCE.slug],
     ItemSelection(kind="pair", dataset="LiveMedBench", sample_n=4, seed=12), {}, 0.0),
]
DEMO_SEED = 2026


def _base_label(f: Field, rng: random.Random, grader: dict[tuple[int, int], str], response_id: int | None) -> str:
    values = f.values
    if f.criterion is not None and response_id is not None and (response_id, f.criterion.pk) in grader:
        verdict = grader[(response_id, f.criterion.pk)]
        if verdict in values and rng.random() < 0.85:
            return verdict
    # The best category is the common one, as in LiveMedBench's validation (most items approved).
    return values[0] if rng.random() < 0.75 else rng.choice(values)


def _labels(a: Assignment, fields: list[Field], rng: random.Random, base: dict[str, str]) -> dict[str, dict]:
    labels = {}
    for f in fields:
        label = base[f.id]
        if rng.random() < 0.05:  # an independent second opinion sometimes differs
            label = rng.choice([v for v in f.values if v != label] or [label])
        comment = "" if f.category(label).approves else "Demo note: see the case."
        labels[f.id] = {"label": label, "comment": comment}
    return labels


def _prefill(study: Study, raters: list, share: float, stdout: TextIO, *, position: int) -> None:
    total = study.items.count()
    target = int(total * share)
    if not target:
        return
    # Seeded by the study's place in DEMO_STUDIES, not its database id: PostgreSQL's sequences do not
    # restart, so the same demo would otherwise get other labels (and other disagreements) each time.
    rng = random.Random(DEMO_SEED + position)
    grader = {
        (d.response_id, d.criterion_id): d.verdict
        for d in GraderDecision.objects.filter(response__review_items__study=study).only(
            "response_id", "criterion_id", "verdict"
        )
    }
    base_by_item: dict[int, dict[str, str]] = {}
    done = 0
    while done < target:
        progressed = False
        for rater in raters:
            a = assignment_claim_next(study=study, rater=rater)
            if a is None:
                continue
            fields = item_fields(a.item)
            base = base_by_item.setdefault(
                a.item_id, {f.id: _base_label(f, rng, grader, a.item.response_id) for f in fields}
            )
            rating_submit(assignment=a, rater=rater, labels=_labels(a, fields, rng, base),
                          seconds_spent=rng.randint(40, 240))
            progressed = True
        done += 1
        if not progressed:
            break
    stdout.write(f"  pre-filled {done} of {total} items with two raters")


def load_demo_review(*, stdout: TextIO) -> None:
    """Create the demo studies; called by load_demo after the demo cases and users exist."""
    User = get_user_model()
    users = {u.username: u for u in User.objects.filter(
        username__in=["admin1", "physician1", "physician2", "inspector1"]
    ).select_related("profile")}
    if len(users) < 4:
        stdout.write("Demo review: demo users missing; skipped.")
        return
    admin = users["admin1"]
    raters = [users["physician1"], users["physician2"]]
    for position, (name, tasks, selection, options, share) in enumerate(DEMO_STUDIES, start=1):
        if Study.objects.filter(name=name).exists():
            stdout.write(f"{name}: already there")
            continue
        study = study_create(
            name=name, created_by=admin, task_slugs=tasks, selection=selection, raters_per_item=2,
            guidelines=GUIDELINES, seed=DEMO_SEED, lease_minutes=60, **options,
        )
        study_add_members(study=study, users=raters, role=StudyMember.Role.RATER, actor=admin)
        study_add_members(study=study, users=[users["inspector1"]], role=StudyMember.Role.INSPECTOR, actor=admin)
        study_start(study=study, actor=admin)
        stdout.write(f"{name}: {study.items.count()} items")
        _prefill(study, raters, share, stdout, position=position)
