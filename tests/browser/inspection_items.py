"""One disputed item of every task type, awaiting inspection, for the inspection-screen browser tests
(issue 20). Each builder sets up a study through the real services and has two physicians submit
labels that differ on some fields and agree on others. Holds no tests.

Raters: physician_a claims first (column 1 of the inspection table), physician_b second (column 2).
"""

from __future__ import annotations

from collections.abc import Callable

from annotation.catalogue import TRANSLATION_CONSISTENCY
from annotation.fields import Field, item_fields
from annotation.models import Assignment, Item
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from cases.translations import translations_import
from tests.annotation.builders import running_study
from tests.factories import make_case, make_release, make_response
from tests.liveclin.builders import import_liveclin, liveclin_study

# field -> the label a rater gives (as that rater sees it: pairs in their own order)
Plan = Callable[[Field], str]


def _submit(assignment: Assignment, rater, plan: Plan) -> None:
    labels = {}
    for field in item_fields(assignment.item):
        label = plan(field)
        category = field.category(label)
        needs = field.task.requires_explanation and category is not None and not category.approves
        labels[field.id] = {"label": label, "comment": f"Because {rater.username} read it so" if needs else ""}
    rating_submit(assignment=assignment, rater=rater, labels=labels, seconds_spent=30)


def _rate(study, raters, plans: tuple[Plan, Plan], orders: tuple[str, str] | None = None) -> Item:
    claimed = [assignment_claim_next(study=study, rater=r) for r in raters]
    assert claimed[0].item_id == claimed[1].item_id
    if orders is not None:
        for assignment, order in zip(claimed, orders, strict=True):
            Assignment.objects.filter(pk=assignment.pk).update(pair_order=order)
            assignment.refresh_from_db()
    for assignment, rater, plan in zip(claimed, raters, plans, strict=True):
        _submit(assignment, rater, plan)
    item = Item.objects.get(pk=claimed[0].item_id)
    assert item.status == Item.Status.INSPECTION, item.status
    return item


def narrative_and_advice(admin, raters, inspector) -> Item:
    make_case(release=make_release())
    study = running_study(admin, raters=raters, inspectors=[inspector], tasks=["narrative-quality", "advice-quality"],
                          inspect_all=True)
    return _rate(study, raters, (lambda f: "2" if f.task.slug == "narrative-quality" else "1",
                                 lambda f: "0" if f.task.slug == "narrative-quality" else "1"))


def criterion_validity(admin, raters, inspector) -> Item:
    make_case(release=make_release())
    study = running_study(admin, raters=raters, inspectors=[inspector], tasks=["criterion-validity"], inspect_all=True)
    first = {1: "agree", 2: "agree", 3: "disagree"}
    second = {1: "disagree", 2: "agree", 3: "agree"}
    return _rate(study, raters, (lambda f: first[f.criterion.order], lambda f: second[f.criterion.order]))


def met_not_met(admin, raters, inspector) -> Item:
    make_response(make_case(release=make_release()), model_name="model-x")
    study = running_study(admin, raters=raters, inspectors=[inspector], tasks=["grader-reliability"], kind="response",
                          inspect_all=True)
    first = {1: "met", 2: "not_met", 3: "not_met"}
    second = {1: "met", 2: "met", 3: "met"}
    return _rate(study, raters, (lambda f: first[f.criterion.order], lambda f: second[f.criterion.order]))


def likert(admin, raters, inspector) -> Item:
    make_response(make_case(release=make_release()), model_name="model-x")
    study = running_study(admin, raters=raters, inspectors=[inspector], tasks=["likert-medic"], kind="response",
                          inspect_all=True)
    axes = [f.key for f in item_fields(study.items.get())]
    return _rate(study, raters, (lambda f: "3", lambda f: "5" if f.key == axes[0] else ("2" if f.key == axes[-1] else "3")))


def pairwise(admin, raters, inspector) -> Item:
    revision = make_case(release=make_release())
    make_response(revision, model_name="model-alpha", text="Alpha: rest and fluids.")
    make_response(revision, model_name="model-beta", text="Beta: start antibiotics.")
    study = running_study(admin, raters=raters, inspectors=[inspector], tasks=["pairwise-preference"], kind="pair",
                          inspect_all=True)
    # physician_a saw alpha first and prefers it ("A"); physician_b saw beta first and calls it a tie.
    return _rate(study, raters, (lambda f: "A", lambda f: "tie"), orders=("ab", "ba"))


TRANSLATED = {"narrative": ("患者发热伴咳嗽三天。", "患者发热、咳嗽已三天。"),
              "query": ("我需要用抗生素吗？", "需要服用抗生素吗？")}


def translation_consistency(admin, raters, inspector) -> Item:
    release = make_release(dataset_name="LiveClin", label="2025H1")
    make_case(release=release, external_id="c1", criteria=[])
    records = [{"case_id": "c1", "field": name, "language": "zh-Hans", "text": text, "variant": variant,
                "source": "machine" if variant == "o3" else "human"}
               for name, texts in TRANSLATED.items() for variant, text in zip(("o3", "pro"), texts, strict=True)]
    translations_import(dataset="LiveClin", release="2025H1", records=records, file_name="zh.json", user=None)
    study = running_study(admin, raters=raters, inspectors=[inspector], tasks=[TRANSLATION_CONSISTENCY.slug],
                          dataset="LiveClin", inspect_all=True)
    return _rate(study, raters, (lambda f: "consistent",
                                 lambda f: "inconsistent" if "query" in f.key else "consistent"))


def liveclin(admin, raters, inspector) -> Item:
    import_liveclin(1)
    study = liveclin_study(admin, raters, inspectors=[inspector])
    return _rate(study, raters, (lambda f: "yes",
                                 lambda f: "no" if f.mcq.order == 1 and f.task.slug == "mcq-factual" else
                                 ("no" if f.mcq.order == 2 and f.task.slug == "mcq-solvability" else "yes")))


BUILDERS: dict[str, Callable] = {
    "narrative-advice": narrative_and_advice,
    "criterion-validity": criterion_validity,
    "met-not-met": met_not_met,
    "likert": likert,
    "pairwise": pairwise,
    "translation": translation_consistency,
    "liveclin": liveclin,
}
