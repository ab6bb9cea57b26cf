"""Read labels for agreement reports out of the database into pandas frames.

Every frame is fetched with one query (`values_list` compiled by the ORM, rows read straight off
the cursor), so a report costs a fixed number of queries whatever the number of ratings. Only
first-round ratings (`Rating.round == 1`) are read for agreement; later rounds are labels changed
after inspection and are counted, never used (`later_round_count`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from django.db.models import BooleanField, Case, CharField, F, Q, QuerySet, Value, When
from django.db.models.functions import Cast, Concat

from accounts.models import Profile
from agreement.frames import add_lookup, read_frame
from agreement.selection import (  # noqa: F401  (public path: agreement.selectors.Selection)
    FILTER_PARAMS,
    GROUPS_INCOMPLETE,
    REVISION_STRATA,
    STRATA,
    Selection,
    groups_incomplete,
    selection_from_params,
    split_pseudonyms,
)
from annotation.models import Assignment, Item, Rating, ScaleCategory, StudyMember, TaskType
from cases.models import CaseRevision, ModelResponse, RubricCriterion
from graders.models import GraderDecision, GraderRun, JudgeScore, PairwiseJudgement

AGREEMENT_ROUND = 1


def _month_range(value: str) -> tuple[dt.datetime, dt.datetime]:
    try:
        start = dt.datetime.strptime(value, "%Y-%m").replace(tzinfo=dt.UTC)
    except ValueError:
        raise ValueError(f"month filter must look like 2025-06, got {value!r}") from None
    end = start.replace(year=start.year + 1, month=1) if start.month == 12 else start.replace(month=start.month + 1)
    return start, end


def _revision_q(selection: Selection, prefix: str) -> Q:
    """Conditions on the case revision reached through `prefix` (e.g. "response__revision__")."""
    q = Q()
    if selection.release_id is not None:
        q &= Q(**{f"{prefix}release_id": selection.release_id})
    if selection.dataset_id is not None:
        q &= Q(**{f"{prefix}case__dataset_id": selection.dataset_id})
    for name, value in selection.filters:
        if name == "specialty":
            q &= Q(**{f"{prefix}specialties__name": value})
        elif name == "theme":
            q &= Q(**{f"{prefix}themes__name": value})
        elif name in ("language", "difficulty", "register"):
            q &= Q(**{f"{prefix}{name}": value})
        elif name == "month":
            start, end = _month_range(value)
            q &= Q(**{f"{prefix}post_time__gte": start, f"{prefix}post_time__lt": end})
    return q


RATING_COLUMNS = (
    "item", "revision", "response", "task", "field", "criterion", "rater", "label", "points", "axis", "model",
    "imported",
)


class CriterionCache:
    """Criterion points and axes fetched once per report: ratings and grader decisions usually need the same."""

    def __init__(self) -> None:
        self._revisions: set[int] = set()
        self._table: pd.DataFrame | None = None

    def table(self, revision_ids: Iterable[int]) -> pd.DataFrame:
        ids = {int(i) for i in revision_ids if not pd.isna(i)}
        if self._table is None or not ids <= self._revisions:
            self._revisions |= ids
            self._table = _criterion_table(self._revisions)
        return self._table


def _criterion_table(revision_ids: Iterable[int]) -> pd.DataFrame:
    ids = sorted({int(i) for i in revision_ids if not pd.isna(i)})
    rows = RubricCriterion.objects.filter(revision_id__in=ids).order_by().values_list("pk", "points", "axis")
    return read_frame(rows, ("id", "points", "axis"), text=("axis",)).set_index("id")



def ratings_queryset(selection: Selection, *, round_: int | None = AGREEMENT_ROUND) -> QuerySet[Rating]:
    qs = Rating.objects.all()
    if round_ is not None:
        qs = qs.filter(round=round_)
    if selection.study_id is not None:
        qs = qs.filter(assignment__item__study_id=selection.study_id)
    qs = qs.filter(_revision_q(selection, "assignment__item__revision__"))
    if selection.tasks:
        qs = qs.filter(task__slug__in=selection.tasks)
    if selection.models:
        qs = qs.filter(assignment__item__response__model_name__in=selection.models)
    axis = selection.filter_dict.get("axis")
    if axis is not None:
        qs = qs.filter(criterion__axis=axis)
    model = selection.filter_dict.get("model")
    if model is not None:
        qs = qs.filter(assignment__item__response__model_name=model)
    return qs


def _assignments(selection: Selection) -> QuerySet[Assignment]:
    """The assignments whose ratings `ratings_queryset` keeps (its conditions on the item)."""
    qs = Assignment.objects.all()
    if selection.study_id is not None:
        qs = qs.filter(item__study_id=selection.study_id)
    qs = qs.filter(_revision_q(selection, "item__revision__"))
    if selection.models:
        qs = qs.filter(item__response__model_name__in=selection.models)
    model = selection.filter_dict.get("model")
    if model is not None:
        qs = qs.filter(item__response__model_name=model)
    return qs


def _field_keys(sent: pd.Series, criterion: pd.Series) -> pd.Categorical:
    """Field keys as a categorical: the key sent, or "criterion:<id>" where the query sent NULL for it.

    `sent` arrives as a categorical (few distinct keys; NULL where the key was rebuildable): its
    codes say which rows were sent, without a Python string per row.
    """
    sent_keys = sent.array if isinstance(sent.dtype, pd.CategoricalDtype) else pd.Categorical(sent)
    sent_codes = np.asarray(sent_keys.codes)
    literal = sent_codes >= 0
    lit_values = sent_keys.categories
    crit_codes, crit_values = pd.factorize(criterion.to_numpy()[~literal])
    names = [str(v) for v in lit_values] + [f"criterion:{int(c)}" for c in crit_values]
    # A literal key may spell the same text as a rebuilt one: merge them into one category.
    merged, categories = pd.factorize(np.asarray(names, dtype=object))
    codes = np.empty(len(sent), dtype=np.int64)
    codes[literal] = merged[sent_codes[literal]] if len(lit_values) else sent_codes[literal]
    codes[~literal] = merged[len(lit_values) + crit_codes] if len(crit_values) else crit_codes
    return pd.Categorical.from_codes(codes, categories=pd.Index(categories, dtype=object))


def rating_frame(selection: Selection, *, criteria: CriterionCache | None = None) -> pd.DataFrame:
    """First-round ratings, one row per label: the only labels agreement statistics use.

    Same rows as `ratings_queryset(selection)`. The big query reads only the rating table's own
    columns (its assignments picked by a subquery, no join to carry their columns along); item,
    rater, task and criterion details come from small lookup queries and are joined in pandas.
    """
    assignments = _assignments(selection)
    qs = Rating.objects.filter(round=AGREEMENT_ROUND, assignment_id__in=assignments.order_by().values("pk"))
    if selection.tasks:
        qs = qs.filter(task__slug__in=selection.tasks)
    axis = selection.filter_dict.get("axis")
    if axis is not None:
        qs = qs.filter(criterion__axis=axis)
    # A criterion's field key is "criterion:<id>": sent as NULL and rebuilt here, it costs the
    # server no text and the client no string per rating (the usual case at scale).
    derived = Concat(Value("criterion:"), Cast("criterion_id", CharField()))
    field_key = Case(When(criterion_id__isnull=False, field_key=derived, then=Value(None)), default=F("field_key"))
    qs = qs.order_by().annotate(field_or_null=field_key).values_list(
        "assignment_id", "task_id", "field_or_null", "criterion_id", "label"
    )
    frame = read_frame(
        qs, ("assignment", "task_id", "field", "criterion", "label"), text=("field", "label"),
        categorical=("field", "label"),
    )
    frame["field"] = _field_keys(frame["field"], frame["criterion"])
    table = read_frame(
        assignments.order_by().values_list(
            "pk", "item_id", "rater_id", "item__revision_id", "item__response_id", "item__response__model_name",
            "imported",
        ),
        ("id", "item", "rater", "revision", "response", "model", "imported"), text=("model",),
    ).set_index("id")
    table["model"] = table["model"].astype(object).where(table["model"].notna(), None)  # case items: no model
    # PostgreSQL's CSV spells booleans t / f; SQLite returns 0 / 1.
    table["imported"] = table["imported"].isin((True, 1, "t", "true", "True"))
    add_lookup(frame, "assignment", table, ("item", "rater", "revision", "response", "model", "imported"))
    tasks = pd.DataFrame(list(TaskType.objects.values_list("pk", "slug")), columns=["id", "task"]).set_index("id")
    add_lookup(frame, "task_id", tasks, ("task",))
    has_criterion = frame["criterion"].notna() if len(frame) else pd.Series(dtype=bool)
    if len(frame) and has_criterion.any():
        table = (criteria or CriterionCache()).table(frame["revision"].unique())
        add_lookup(frame, "criterion", table, ("points", "axis"))
    else:
        frame["points"] = np.nan
        frame["axis"] = None
    return frame[list(RATING_COLUMNS)]


def later_round_count(selection: Selection) -> int:
    """How many ratings from rounds after the first the selection holds (reported, not used)."""
    # Only assignments sent back for another round can hold later-round ratings (a rating's round is
    # its assignment's round when written, and rounds only grow): that subquery is small and indexed,
    # where filtering the rating table on its round scans every study's ratings.
    later = _assignments(selection).filter(round__gt=AGREEMENT_ROUND).order_by().values("pk")
    qs = Rating.objects.filter(round__gt=AGREEMENT_ROUND, assignment_id__in=later)
    if selection.tasks:
        qs = qs.filter(task__slug__in=selection.tasks)
    axis = selection.filter_dict.get("axis")
    if axis is not None:
        qs = qs.filter(criterion__axis=axis)
    return qs.count()


def _response_q(selection: Selection) -> Q:
    q = _revision_q(selection, "response__revision__")
    if selection.study_id is not None:
        # Only responses the study put in front of physicians: like is compared with like.
        q &= Q(response_id__in=Item.objects.filter(study_id=selection.study_id, response__isnull=False).values("response_id"))
    models = set(selection.models)
    model = selection.filter_dict.get("model")
    if models:
        q &= Q(response__model_name__in=sorted(models))
    if model is not None:
        q &= Q(response__model_name=model)
    if selection.graders:
        q &= Q(run_id__in=selection.graders)
    return q


DECISION_COLUMNS = ("run", "response", "criterion", "verdict", "revision", "points", "axis", "model")


def _response_table(selection: Selection) -> pd.DataFrame:
    q = _revision_q(selection, "revision__")
    if selection.study_id is not None:
        q &= Q(pk__in=Item.objects.filter(study_id=selection.study_id, response__isnull=False).values("response_id"))
    rows = ModelResponse.objects.filter(q).order_by().values_list("pk", "revision_id", "model_name")
    return read_frame(rows, ("id", "revision", "model"), text=("model",)).set_index("id")


def decision_frame(selection: Selection, *, criteria: CriterionCache | None = None) -> pd.DataFrame:
    """Grader decisions on the selection's responses (joined to the human pairs by the report)."""
    q = _response_q(selection)
    axis = selection.filter_dict.get("axis")
    if axis is not None:
        q &= Q(criterion__axis=axis)
    qs = GraderDecision.objects.filter(q).order_by().values_list("run_id", "response_id", "criterion_id", "verdict")
    frame = read_frame(qs, ("run", "response", "criterion", "verdict"), text=("verdict",), categorical=("verdict",))
    if len(frame):
        responses = _response_table(selection)
        add_lookup(frame, "response", responses, ("revision", "model"))
        table = (criteria or CriterionCache()).table(responses["revision"].unique())
        add_lookup(frame, "criterion", table, ("points", "axis"))
    else:
        for c in ("revision", "points", "axis", "model"):
            frame[c] = pd.Series(dtype=object)
    return frame[list(DECISION_COLUMNS)]


JUDGE_COLUMNS = ("run", "response", "score", "status", "revision", "model", "axis", "raw")


def judge_frame(selection: Selection) -> pd.DataFrame:
    """Judge scores on the selection's responses: holistic (axis "") and per axis (Likert judges).

    `score` is the normalised score in [0, 1], `raw` the judge's own (1-5 for a Likert judge). An
    axis filter keeps the scores on that axis: a holistic score belongs to no axis.
    """
    q = _response_q(selection)
    axis = selection.filter_dict.get("axis")
    if axis is not None:
        q &= Q(axis=axis)
    qs = JudgeScore.objects.filter(q).order_by().values_list(
        "run_id", "response_id", "normalized_score", "status", "response__revision_id", "response__model_name",
        "axis", "raw_score",
    )
    return read_frame(qs, JUDGE_COLUMNS, text=("status", "model", "axis"))


PAIRWISE_COLUMNS = ("run", "a", "b", "order", "verdict")
PAIRWISE_MODEL_COLUMNS = (*PAIRWISE_COLUMNS, "model_a", "model_b")


def pairwise_frame(selection: Selection) -> pd.DataFrame:
    q = _revision_q(selection, "response_a__revision__")
    if selection.graders:
        q &= Q(run_id__in=selection.graders)
    if selection.study_id is not None:
        in_study = Item.objects.filter(study_id=selection.study_id, response__isnull=False).values("response_id")
        q &= Q(response_a_id__in=in_study) | Q(response_b_id__in=in_study)
    qs = PairwiseJudgement.objects.filter(q).order_by("pk").values_list(
        "run_id", "response_a_id", "response_b_id", "order", "verdict", "response_a__model_name",
        "response_b__model_name",
    )
    return read_frame(qs, PAIRWISE_MODEL_COLUMNS, text=("order", "verdict", "model_a", "model_b"))


HUMAN_PAIRWISE_COLUMNS = ("rater", "item", "a", "b", "model_a", "model_b", "order", "verdict")


def human_pairwise_frame(selection: Selection) -> pd.DataFrame:
    """Physicians' first-round pairwise preferences with the order each was shown in.

    `verdict` is stored in terms of the item's response (A) and response_b (B) whatever the order
    shown; `order` is the assignment's `pair_order` ("ab" = A shown first, "" when unknown, e.g.
    imported labels).
    """
    qs = Rating.objects.filter(
        round=AGREEMENT_ROUND, task__target="pairwise",
        assignment_id__in=_assignments(selection).order_by().values("pk"),
    )
    if selection.tasks:
        qs = qs.filter(task__slug__in=selection.tasks)
    qs = qs.order_by().values_list(
        "assignment__rater_id", "assignment__item_id", "assignment__item__response_id",
        "assignment__item__response_b_id", "assignment__item__response__model_name",
        "assignment__item__response_b__model_name", "assignment__pair_order", "label",
    )
    return read_frame(qs, HUMAN_PAIRWISE_COLUMNS, text=("model_a", "model_b", "order", "verdict"))


def pairwise_run_frame(run_ids: Sequence[int]) -> pd.DataFrame:
    """Every judgement of the given pairwise runs, whatever the selection (position bias is a property
    of the judge over its whole run). In insertion order, so a repeated judgement's latest comes last."""
    qs = PairwiseJudgement.objects.filter(run_id__in=list(run_ids)).order_by("pk").values_list(
        "run_id", "response_a_id", "response_b_id", "order", "verdict"
    )
    return read_frame(qs, PAIRWISE_COLUMNS, text=("order", "verdict"))


@dataclass(frozen=True)
class RaterInfo:
    pseudonym: str
    rank: str


def raters(user_ids: Iterable[int]) -> dict[int, RaterInfo]:
    """Raters as researchers may see them: pseudonym and rank, never a username."""
    ids = sorted({int(i) for i in user_ids})
    if not ids:
        return {}
    return {
        uid: RaterInfo(pseudonym=pseudonym, rank=rank)
        for uid, pseudonym, rank in Profile.objects.filter(user_id__in=ids).values_list("user_id", "pseudonym", "rank")
    }


def study_rater_groups(study_id: int) -> dict[int, str]:
    """rater id -> "A" / "B": the expert groups the study assigned its raters to (by design)."""
    return dict(StudyMember.objects.filter(study_id=study_id, role=StudyMember.Role.RATER).exclude(group="")
                .values_list("user_id", "group"))


def rater_ids_for_pseudonyms(pseudonyms: Iterable[str]) -> list[int]:
    return list(Profile.objects.filter(pseudonym__in=list(pseudonyms)).values_list("user_id", flat=True))


@dataclass(frozen=True)
class TaskScale:
    slug: str
    name: str
    ordered: bool
    categories: tuple[str, ...]
    approving: frozenset[str]
    target: str
    order: int = 0
    #: The categories as a reader sees them (shown labels, interface language), in `categories` order.
    labels: tuple[str, ...] = ()


def task_scales(slugs: Iterable[str]) -> dict[str, TaskScale]:
    """Each task's declared categories, in scale order (chance agreement uses all of them); names and
    category labels in the active interface language."""
    slugs = sorted(set(slugs))
    if not slugs:
        return {}
    tasks = list(TaskType.objects.filter(slug__in=slugs).select_related("scale"))
    cats: dict[int, list[ScaleCategory]] = {}
    for category in ScaleCategory.objects.filter(scale_id__in=[t.scale_id for t in tasks]).order_by(
            "scale_id", "order", "pk"):
        cats.setdefault(category.scale_id, []).append(category)
    return {
        task.slug: TaskScale(
            slug=task.slug,
            name=task.shown_name,
            ordered=task.scale.ordered,
            categories=tuple(c.value for c in cats.get(task.scale_id, [])),
            approving=frozenset(c.value for c in cats.get(task.scale_id, []) if c.approves),
            target=task.target,
            order=task.order,
            labels=tuple(c.shown_label for c in cats.get(task.scale_id, [])),
        )
        for task in tasks
    }


@dataclass(frozen=True)
class RunInfo:
    name: str
    kind: str
    grader_model: str
    prompt_version: str


def grader_runs(run_ids: Iterable[int]) -> dict[int, RunInfo]:
    ids = sorted({int(i) for i in run_ids})
    if not ids:
        return {}
    rows = GraderRun.objects.filter(pk__in=ids).values_list("pk", "name", "kind", "grader_model", "prompt_version")
    return {pk: RunInfo(name, kind, model, version) for pk, name, kind, model, version in rows}


@dataclass
class RevisionStrata:
    """Stratum values of each case revision; specialty and theme may hold several per revision."""

    scalar: pd.DataFrame = field(default_factory=pd.DataFrame)  # index revision; language, difficulty...
    specialty: pd.DataFrame = field(default_factory=pd.DataFrame)  # revision, value
    theme: pd.DataFrame = field(default_factory=pd.DataFrame)

    def values(self, name: str) -> pd.DataFrame:
        """revision -> value rows for one revision stratum (possibly several rows per revision)."""
        if name in ("specialty", "theme"):
            return getattr(self, name)
        frame = self.scalar[["revision", name]].rename(columns={name: "value"})
        return frame[frame["value"].astype(str) != ""]


def revision_strata(revision_ids: Iterable[int], needed: Sequence[str] = REVISION_STRATA) -> RevisionStrata:
    """Fetch the revision strata in at most three queries."""
    ids = sorted({int(i) for i in revision_ids if i is not None and not pd.isna(i)})
    out = RevisionStrata(
        scalar=pd.DataFrame(columns=["revision", "language", "difficulty", "register", "month"]),
        specialty=pd.DataFrame(columns=["revision", "value"]),
        theme=pd.DataFrame(columns=["revision", "value"]),
    )
    if not ids:
        return out
    if any(n in needed for n in ("language", "difficulty", "register", "month")):
        rows = list(
            CaseRevision.objects.filter(pk__in=ids).values_list("pk", "language", "difficulty", "register", "post_time")
        )
        out.scalar = pd.DataFrame(
            [(pk, lang, diff, reg, pt.strftime("%Y-%m") if pt else "") for pk, lang, diff, reg, pt in rows],
            columns=["revision", "language", "difficulty", "register", "month"],
        )
    if "specialty" in needed:
        through = CaseRevision.specialties.through
        out.specialty = pd.DataFrame(
            list(through.objects.filter(caserevision_id__in=ids).values_list("caserevision_id", "specialty__name")),
            columns=["revision", "value"],
        )
    if "theme" in needed:
        through = CaseRevision.themes.through
        out.theme = pd.DataFrame(
            list(through.objects.filter(caserevision_id__in=ids).values_list("caserevision_id", "theme__name")),
            columns=["revision", "value"],
        )
    return out


def task_targets(selection: Selection) -> frozenset[str] | None:
    """What the selection's tasks rate (`TaskType.target`): the study's tasks, or the chosen ones.

    None for a release or dataset report, which covers every study's labels and so every kind.
    """
    if selection.study_id is None:
        return None
    qs = TaskType.objects.filter(studies=selection.study_id)
    if selection.tasks:
        qs = qs.filter(slug__in=selection.tasks)
    return frozenset(qs.values_list("target", flat=True).distinct())


def study_models(study_id: int) -> list[str]:
    # DISTINCT in the database: the filter form needs 11 names, not one row per response (2,750 at scale).
    return sorted(
        ModelResponse.objects.filter(review_items__study_id=study_id)
        .order_by().values_list("model_name", flat=True).distinct()
    )


def raw_label_rows(selection: Selection, *, hidden_items: frozenset[int] = frozenset(),
                   calibration: bool = False) -> QuerySet:
    """All rounds of every rating in the selection, for the long-format export, less the items the
    reader may not see yet (`annotation.access.access_item_ids_blinded_for_export`).

    Calibration items' ratings (round 0, known answers newcomers rate before a study) are left out
    unless `calibration` is asked for, and the last column says whether a row is one (issue 21), so
    they never mix into a researcher's figures unnoticed."""
    qs = ratings_queryset(selection, round_=None).exclude(assignment__item_id__in=hidden_items)
    if not calibration:
        qs = qs.exclude(assignment__item__status=Item.Status.CALIBRATION)
    return (
        qs.annotate(is_calibration=Case(When(assignment__item__status=Item.Status.CALIBRATION, then=Value(True)),
                                        default=Value(False), output_field=BooleanField()))
        .order_by("assignment__item_id", "task__slug", "field_key", "assignment__rater_id", "round")
        .values_list(
            "assignment__item__study_id",
            "assignment__item_id",
            "assignment__item__key",
            "assignment__item__revision__case__external_id",
            "assignment__item__response__model_name",
            "task__slug",
            "field_key",
            "criterion_id",
            "mcq_id",
            "assignment__rater__profile__pseudonym",
            "round",
            "label",
            "seconds_spent",
            "created_at",
            "is_calibration",
        )
    )


RAW_LABEL_COLUMNS = (
    "study", "item", "item_key", "case", "model", "task", "field", "criterion", "mcq",
    "rater", "round", "label", "seconds_spent", "created_at", "calibration",
)
