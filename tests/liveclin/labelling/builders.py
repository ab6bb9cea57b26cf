"""LiveClin cases carrying the AI's labels (taxonomy path, image and table modality), and label
tasks over them built through the real services."""

from __future__ import annotations

import json

from cases.models import Release, Taxonomy, TaxonomyNode
from cases.services import release_import
from cases.taxonomies.builtin import builtin_file
from cases.taxonomies.services import taxonomy_load
from liveclin.labelling.services import label_task_add_members, label_task_create
from liveclin.models import LabelTask, LabelTaskMember

CHAPTERS = {"2": "Chapter 2: Neoplasms", "6": "Chapter 6: Diseases of the nervous system"}
CLUSTERS = {"C40-C41": "Malignant neoplasms of bone and articular cartilage (C40-C41)",
            "C30-C39": "Malignant neoplasms of respiratory and intrathoracic organs (C30-C39)",
            "G00-G14": "Inflammatory and systemic atrophic diseases of the central nervous system (G00-G14)"}
CODES = {"C41": "C41 Malignant neoplasm of bone and articular cartilage of other and unspecified sites",
         "C40": "C40 Malignant neoplasm of bone and articular cartilage of limbs",
         "C34": "C34 Malignant neoplasm of bronchus and lung",
         "G08": "G08 Intracranial and intraspinal phlebitis and thrombophlebitis",
         "G04": "G04 Encephalitis, myelitis and encephalomyelitis"}
# The AI's path of each made-up case (App. E's three levels).
AI_PATHS = [("2", "C40-C41", "C41"), ("6", "G00-G14", "G08"), ("2", "C40-C41", "C40"), ("2", "C40-C41", "C41"),
            ("6", "G00-G14", "G04")]
CASE_MARKER = "CASE-TEXT-MARKER"


def record(n: int, path: tuple[str, str, str]) -> dict:
    chapter, cluster, code = path
    return {
        "pmc": f"PMC-LBL-{n:04d}", "title": f"Made-up case {n}", "Rarity": "rare",
        "Level1": CHAPTERS[chapter], "Level2": CLUSTERS[cluster], "ICD-10": CODES[code],
        "case_report": f"{CASE_MARKER}-{n}: a made-up case report.",
        "exam_creation": {"final_policy": {
            "scenario": f"Scenario {n}: a patient with a long history.",
            "scenario_image_details": [{"caption": f"Figure {n}. Radiograph", "type": "X-ray of the Knee (AP view)",
                                        "file": f"c{n}-fig1.jpg"}],
            "scenario_table_details": [{"caption": f"Table {n}. Blood tests", "type": "Table of Serial Blood Test Results",
                                        "table": "| test | value |\n|---|---|\n| Hb | 120 |"}],
            "mcqs": [{"stage": "Initial diagnostic imaging", "question": f"Case {n}: which finding matters most?",
                      "options": {"A": "First", "B": "Second"}, "correct_answer": "B",
                      "image_details": [], "table_details": []}],
        }},
    }


def labelled_release(paths: list[tuple[str, str, str]] = AI_PATHS) -> Release:
    """The LiveClin taxonomy, the cases, and the AI labels their records carry."""
    path = builtin_file("liveclin")
    if not Taxonomy.objects.filter(key="liveclin").exists():
        assert taxonomy_load(data=path.read_bytes(), file_name=path.name).ok
    data = "\n".join(json.dumps(record(n, p)) for n, p in enumerate(paths, 1)).encode()
    cases = release_import(fmt="liveclin", data=data, file_name="liveclin_lbl.jsonl", dataset_name="LiveClin",
                           release_label="2025H1")
    assert cases.status == "imported", cases.errors
    labels = release_import(fmt="liveclin-labels", data=data, file_name="liveclin_lbl.jsonl",
                            dataset_name="LiveClin", release_label="2025H1-labels")
    assert labels.status == "imported", labels.errors
    return Release.objects.get(pk=cases.release_id)


def node_ids(*codes: str) -> list[int]:
    """The node ids of a path given by codes, level 1 first."""
    taxonomy = Taxonomy.objects.get(key="liveclin")
    return [TaxonomyNode.objects.get(taxonomy=taxonomy, level=level, code=code).pk
            for level, code in enumerate(codes, 1)]


def assignment_task(admin, raters, *, inspectors=(), raters_per_unit: int = 1,
                    paths: list[tuple[str, str, str]] = AI_PATHS) -> LabelTask:
    release = labelled_release(paths)
    task = label_task_create(name="Taxonomy check", kind=LabelTask.Kind.ASSIGNMENT, release=release,
                             taxonomy=Taxonomy.objects.get(key="liveclin"), raters_per_unit=raters_per_unit,
                             created_by=admin)
    label_task_add_members(task=task, users=list(raters), role=LabelTaskMember.Role.RATER)
    label_task_add_members(task=task, users=list(inspectors), role=LabelTaskMember.Role.INSPECTOR)
    return task


def audit_task(admin, raters, *, inspectors=(), raters_per_unit: int = 1, cases: int = 2) -> LabelTask:
    release = labelled_release(AI_PATHS[:cases])
    task = label_task_create(name="Modality audit", kind=LabelTask.Kind.AUDIT, release=release,
                             raters_per_unit=raters_per_unit, created_by=admin)
    label_task_add_members(task=task, users=list(raters), role=LabelTaskMember.Role.RATER)
    label_task_add_members(task=task, users=list(inspectors), role=LabelTaskMember.Role.INSPECTOR)
    return task
