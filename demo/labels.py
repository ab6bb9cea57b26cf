"""The demo's physician tasks over the AI's labels (LiveClin App. E, I, J): the LiveClin taxonomy,
the AI labels of the demo cases (demo/data/liveclin_ai_labels.jsonl), two demo models' answers
(liveclin_model_answers.jsonl), a blind taxonomy assignment
(two raters a case), a modality audit, and the shipped stage and modality consolidations.
Safe to run again: what exists is left as it is."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from django.contrib.auth import get_user_model
from django.core.management import call_command

from cases.models import Dataset, Release, Taxonomy
from cases.services import release_import
from cases.taxonomies.builtin import builtin_file
from cases.taxonomies.services import taxonomy_load
from liveclin.consolidation.scores import model_scores_import
from liveclin.labelling.services import label_task_add_members, label_task_create
from liveclin.models import Consolidation, LabelTask, LabelTaskMember

DATA = Path(__file__).resolve().parent / "data"
ASSIGNMENT, AUDIT = "Demo: LiveClin taxonomy, blind assignment", "Demo: LiveClin image and table labels, audit"


def load_demo_labels(*, stdout: TextIO) -> None:
    path = builtin_file("liveclin")
    report = taxonomy_load(data=path.read_bytes(), file_name=path.name)
    stdout.write(f"taxonomy liveclin: {report.status}\n")
    labels = release_import(fmt="ai-labels", data=(DATA / "liveclin_ai_labels.jsonl").read_bytes(),
                            file_name="liveclin_ai_labels.jsonl", dataset_name="LiveClin",
                            release_label="demo-2025H1-labels")
    stdout.write(f"liveclin_ai_labels.jsonl: {labels.status}\n")
    users = {u.get_username(): u for u in get_user_model().objects.filter(
        username__in=["physician1", "physician2", "inspector1", "admin1"])}
    raters = [users["physician1"], users["physician2"]]
    cases = Release.objects.get(dataset__name="LiveClin", label="demo-2025H1", format="liveclin")
    taxonomy = Taxonomy.objects.filter(key="liveclin").order_by("-imported_at").first()
    for name, kind, per_unit in ((ASSIGNMENT, LabelTask.Kind.ASSIGNMENT, 2), (AUDIT, LabelTask.Kind.AUDIT, 1)):
        if LabelTask.objects.filter(name=name).exists():
            continue
        task = label_task_create(name=name, kind=kind, release=cases, created_by=users["admin1"],
                                 taxonomy=taxonomy if kind == LabelTask.Kind.ASSIGNMENT else None,
                                 raters_per_unit=per_unit)
        label_task_add_members(task=task, users=raters, role=LabelTaskMember.Role.RATER)
        label_task_add_members(task=task, users=[users["inspector1"]], role=LabelTaskMember.Role.INSPECTOR)
        stdout.write(f"label task “{name}”: {task.units.count()} items\n")
    scores = model_scores_import(data=(DATA / "liveclin_model_answers.jsonl").read_bytes(),
                                 file_name="liveclin_model_answers.jsonl", dataset=Dataset.objects.get(name="LiveClin"))
    stdout.write(f"liveclin_model_answers.jsonl: {scores.answers} answers ({', '.join(scores.models)})\n")
    for key in ("liveclin-stages", "liveclin-modalities"):
        if not Consolidation.objects.filter(key=key).exists():
            call_command("load_consolidation", key, "--reviewer", "physician1", "--reviewer", "physician2",
                         stdout=stdout)
