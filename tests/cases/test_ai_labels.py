"""AI labels: imported from a LiveClin release's own fields or the documented JSONL, attached to the
exact case, MCQ, image or table, resolved to taxonomy nodes; bad files refused whole, every error
located (file, record, field)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db.models import F
from django.urls import reverse
from rest_framework.test import APIClient

from cases.models import MCQ, AILabel, Release
from cases.services import import_job_create, release_import
from cases.taxonomies.builtin import builtin_file
from cases.taxonomies.resolve import IndexedNode, NodeIndex
from cases.taxonomies.services import taxonomy_load

FIXTURES = Path(__file__).parent / "fixtures"
LABELLED = FIXTURES / "liveclin_labelled.jsonl"


@pytest.fixture
def liveclin_taxonomy(db):
    path = builtin_file("liveclin")
    assert taxonomy_load(data=path.read_bytes(), file_name=path.name).status == "loaded"


def import_file(fmt: str, path: Path, **options):
    return release_import(fmt=fmt, data=path.read_bytes(), file_name=path.name, dataset_name="LiveClin",
                          release_label=options.pop("release_label", path.stem), **options)


@pytest.fixture
def labelled_cases(liveclin_taxonomy):
    assert import_file("liveclin", LABELLED).status == "imported"


@pytest.fixture
def demo_cases(liveclin_taxonomy):
    assert import_file("liveclin", FIXTURES / "liveclin.jsonl").status == "imported"


def labels(**filters) -> list[AILabel]:
    # The scenario's images and tables (no MCQ) first, on SQLite and PostgreSQL alike.
    return list(AILabel.objects.filter(**filters).select_related("node", "mcq", "revision__case")
                .order_by("revision__case__external_id", "target", F("mcq__order").asc(nulls_first=True), "position",
                          "level"))


@pytest.mark.django_db
def test_it_imports_the_labels_a_liveclin_release_carries(labelled_cases) -> None:
    report = import_file("liveclin-labels", LABELLED, release_label="2025H1-labels")
    assert report.status == "imported", report.errors
    # case 1: 3 levels, 4 stages, 1 scenario image, 2 MCQ images, 1 MCQ table; case 2: 3 levels, 3 stages, 1 table, 1 image
    assert report.created["ai_labels"] == 3 + 4 + 1 + 2 + 1 + 3 + 3 + 1 + 1
    case = labels(revision__case__external_id="PMC-TAX-0001", kind="taxonomy")
    assert [(a.level, a.node.code) for a in case] == [(1, "2"), (2, "C40-C41"), (3, "C41")]
    assert case[1].value == "Malignant neoplasms of bone and articular cartilage (C40-C41)"
    assert {a.model_name for a in case} == {"gpt-4.1-2025-04-14"}
    stages = labels(revision__case__external_id="PMC-TAX-0001", kind="stage")
    assert [(a.mcq.order, a.value) for a in stages] == [
        (1, "Initial diagnostic imaging"), (2, "Histopathological interpretation"),
        (3, "Surgical Intervention planning"), (4, "Post-operative follow-up")]
    assert {a.model_name for a in stages} == {"o3"} and all(a.node is None for a in stages)
    images = labels(revision__case__external_id="PMC-TAX-0001", target="image")
    assert [(a.mcq.order if a.mcq else 0, a.position, a.value) for a in images] == [
        (0, 1, "X-ray of the Knee (AP view)"), (2, 1, "H&E Stained Pathological Slide"),
        (2, 2, "MRI of the Knee (T1-weighted)")]
    table = labels(revision__case__external_id="PMC-TAX-0002", target="table")[0]
    assert (table.mcq, table.position, table.kind, table.value) == (None, 1, "modality", "Table of Serial Blood Test Results")
    g08 = labels(revision__case__external_id="PMC-TAX-0002", level=3)[0]
    assert (g08.node.code, g08.node.parent.code) == ("G08", "G00-G14")
    release = Release.objects.get(format="liveclin-labels")
    assert release.counts["ai_labels"] == 19 and all(a.release_id == release.pk for a in AILabel.objects.all())
    assert str(release).startswith("LiveClin 2025H1-labels · AI labels · ")
    again = import_file("liveclin-labels", LABELLED, release_label="2025H1-labels")
    assert again.status == "unchanged" and AILabel.objects.count() == 19


@pytest.mark.django_db
def test_it_attaches_labels_to_the_current_revision_and_its_mcqs(labelled_cases) -> None:
    import_file("liveclin-labels", LABELLED)
    label = labels(kind="stage", revision__case__external_id="PMC-TAX-0002")[0]
    assert label.revision_id == label.revision.case.current_revision_id
    assert label.mcq == MCQ.objects.get(question_set__revision=label.revision, order=1)


@pytest.mark.django_db
def test_it_names_one_model_for_every_label_when_given(labelled_cases) -> None:
    report = import_file("liveclin-labels", LABELLED, model_name="gpt-5")
    assert report.status == "imported"
    assert set(AILabel.objects.values_list("model_name", flat=True)) == {"gpt-5"}


@pytest.mark.django_db
def test_it_refuses_a_label_outside_the_taxonomy_with_its_record_and_field(demo_cases) -> None:
    report = import_file("liveclin-labels", FIXTURES / "liveclin.jsonl")
    assert report.status == "refused"
    first = report.errors[0]
    assert (first.file, first.record, first.field) == ("liveclin.jsonl", 1, "Level2")
    assert "'Adrenal disorders' is not a level-2 node of taxonomy 'liveclin@2025'" in first.message
    assert not AILabel.objects.exists() and not Release.objects.filter(format="liveclin-labels").exists()


@pytest.mark.django_db
def test_it_imports_the_documented_jsonl(demo_cases) -> None:
    report = import_file("ai-labels", FIXTURES / "ai_labels.jsonl")
    assert report.status == "imported", report.errors
    assert report.created["ai_labels"] == 7
    taxonomy = labels(kind="taxonomy")
    assert [(a.level, a.node.code) for a in taxonomy] == [(1, "4"), (2, "E15-E64"), (3, "E27")]
    assert taxonomy[1].value == "E15-E64"  # given by code only
    image = labels(revision__case__external_id="PMC-DEMO-0001", target="image")[0]
    assert (image.mcq.order, image.position, image.value) == (2, 1, "CT Scan of the Abdomen")
    scenario_image = labels(revision__case__external_id="990000002", target="image")[0]
    assert (scenario_image.mcq, scenario_image.position) == (None, 1)


@pytest.mark.django_db
def test_it_writes_nothing_in_a_dry_run(demo_cases) -> None:
    report = import_file("ai-labels", FIXTURES / "ai_labels.jsonl", dry_run=True)
    assert report.status == "dry-run" and report.created["ai_labels"] == 7
    assert not AILabel.objects.exists()


def jsonl(*rows: dict) -> bytes:
    return "\n".join(json.dumps(r) for r in rows).encode()


BASE = {"case_id": "PMC-DEMO-0001", "model": "o3"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("row", "field", "message"),
    [
        ({**BASE, "target": "question", "mcq": 9, "label": "x"}, "mcq", "MCQ 9 out of range"),
        ({**BASE, "target": "image", "mcq": 1, "position": 1, "label": "x"}, "position",
         "image 1 out of range: MCQ 1 of 'PMC-DEMO-0001' has 0"),
        ({**BASE, "target": "table", "mcq": 0, "position": 2, "label": "x"}, "position",
         "table 2 out of range: the scenario of 'PMC-DEMO-0001' has 1"),
        ({**BASE, "case_id": "PMC-NONE", "target": "question", "mcq": 1, "label": "x"}, "case_id", "no case 'PMC-NONE'"),
        ({**BASE, "target": "case", "level": 2, "code": "Z99"}, "code", "'Z99' is not a level-2 node"),
        ({**BASE, "target": "organ", "label": "x"}, "target", "unknown target 'organ'"),
        ({**BASE, "target": "question", "label": "x"}, "mcq", "missing required field"),
        ({**BASE, "target": "question", "mcq": 1, "level": 1, "label": "x"}, "level", "a question label has no level"),
        ({**BASE, "target": "case", "label": "x"}, "level", "missing required field"),
        ({"case_id": "PMC-DEMO-0001", "target": "question", "mcq": 1, "label": "x"}, "model", "the model that made"),
        ({**BASE, "target": "question", "mcq": 1, "label": "x", "confidence": 0.9}, "confidence", "unknown key"),
        ({**BASE, "target": "question", "mcq": 1, "label": "x" * 501}, "label", "501 characters; at most 500"),
    ],
)
def test_it_locates_each_problem_of_an_ai_label_file(demo_cases, row: dict, field: str, message: str) -> None:
    report = release_import(fmt="ai-labels", data=jsonl(row), file_name="labels.jsonl", dataset_name="LiveClin",
                            release_label="bad")
    assert report.status == "refused"
    assert any(e.record == 1 and e.field == field and message in e.message and e.file == "labels.jsonl"
               for e in report.errors), report.errors
    assert not AILabel.objects.exists()


@pytest.mark.django_db
def test_it_refuses_the_same_label_twice_in_one_file(demo_cases) -> None:
    row = {**BASE, "target": "question", "mcq": 1, "label": "Diagnosis"}
    report = release_import(fmt="ai-labels", data=jsonl(row, row), file_name="twice.jsonl", dataset_name="LiveClin",
                            release_label="twice")
    assert [(e.record, e.field) for e in report.errors] == [(2, "label")]
    assert "first at line 1" in report.errors[0].message


@pytest.mark.django_db
def test_it_asks_for_the_taxonomy_to_be_loaded_first(db) -> None:
    import_file("liveclin", FIXTURES / "liveclin.jsonl")
    report = import_file("ai-labels", FIXTURES / "ai_labels.jsonl")
    assert report.status == "refused"
    assert report.errors[0].field == "taxonomy" and "load_taxonomy liveclin" in report.errors[0].message


@pytest.mark.django_db
def test_it_resolves_labels_in_the_taxonomy_version_named(demo_cases, tmp_path: Path) -> None:
    report = import_file("ai-labels", FIXTURES / "ai_labels.jsonl", taxonomy="liveclin@1999")
    assert report.status == "refused" and "no taxonomy 'liveclin@1999'" in report.errors[0].message
    assert import_file("ai-labels", FIXTURES / "ai_labels.jsonl", taxonomy="liveclin@2025").status == "imported"


def index() -> NodeIndex:
    return NodeIndex.build([
        IndexedNode(1, 1, "2", ("Neoplasms", "肿瘤", "Neoplasms")),
        IndexedNode(2, 2, "C40-C41", ("Malignant neoplasms of bone and articular cartilage", "", "Bone & Cartilage")),
        IndexedNode(3, 2, "A00-A19", ("Intestinal infectious diseases and tuberculosis", "", "")),
        IndexedNode(4, 3, "C41", ("Malignant neoplasm of bone and articular cartilage of other sites",)),
        IndexedNode(5, 3, "G01", ("Meningitis in bacterial diseases classified elsewhere",)),
    ])


@pytest.mark.parametrize(
    ("level", "value", "expected"),
    [
        (1, "Chapter 2: Neoplasms", 1),
        (1, "Chapter II", 1),
        (1, "2", 1),
        (1, "肿瘤", 1),
        (2, "Malignant neoplasms of bone and articular cartilage (C40-C41)", 2),
        (2, "Some other wording (C40-41)", 2),
        (2, "bone & cartilage", 2),
        (2, "a00-19", 3),
        (3, "C41 Malignant neoplasm of bone and articular cartilage", 4),
        (3, "C41.9 Malignant neoplasm of bone and articular cartilage, unspecified", 4),
        (3, "G01* Meningitis in bacterial diseases classified elsewhere", 5),
        (3, "C40 Malignant neoplasm of bone of limbs", None),
        (2, "Chapter 2: Neoplasms", None),
    ],
)
def test_it_resolves_a_label_the_way_liveclin_wrote_it(level: int, value: str, expected: int | None) -> None:
    assert index().resolve(level, value) == expected


def test_it_resolves_an_explicit_code_only_as_a_code() -> None:
    assert index().resolve(3, "anything", code="C41") == 4
    assert index().resolve(3, "C41 Malignant", code="C99") is None


def command(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("import_cases", *args, stdout=out, stderr=err)
        return 0, out.getvalue(), err.getvalue()
    except SystemExit as exc:
        return int(exc.code or 0), out.getvalue(), err.getvalue()


@pytest.mark.django_db
def test_it_imports_labels_from_the_command_line_with_a_taxonomy(labelled_cases) -> None:
    code, out, _ = command("liveclin-labels", str(LABELLED), "--taxonomy", "liveclin@2025", "--json")
    assert code == 0 and json.loads(out)["created"]["ai_labels"] == 19
    code, _, err = command("ai-labels", str(FIXTURES / "ai_labels.jsonl"), "--taxonomy", "icd11")
    assert code == 1 and "no taxonomy 'icd11' is loaded" in err


@pytest.mark.django_db
def test_it_imports_labels_through_the_api_for_admins_only(demo_cases, admin, researcher) -> None:
    api = APIClient()

    def post(**fields):
        upload = SimpleUploadedFile("ai_labels.jsonl", (FIXTURES / "ai_labels.jsonl").read_bytes())
        return api.post(reverse("cases_api:import"), {"format": "ai-labels", "file": upload, "release": "l1", **fields},
                        format="multipart")

    api.force_authenticate(researcher)
    assert post().status_code == 403
    api.force_authenticate(admin)
    refused = post(taxonomy="nope")
    assert refused.status_code == 400 and refused.json()["errors"][0]["field"] == "taxonomy"
    response = post(taxonomy="liveclin")
    assert response.status_code == 201 and response.json()["created"]["ai_labels"] == 7


@pytest.mark.django_db
def test_it_keeps_the_taxonomy_of_an_upload_for_the_worker(demo_cases, admin) -> None:
    job = import_job_create(user=admin, fmt="ai-labels", data=(FIXTURES / "ai_labels.jsonl").read_bytes(),
                            file_name="ai_labels.jsonl", dataset_name="LiveClin", release_label="l1",
                            taxonomy="liveclin@2025")
    assert job.status == "validated" and job.taxonomy == "liveclin@2025"
    assert job.validation["created"]["ai_labels"] == 7
    refused = import_job_create(user=admin, fmt="ai-labels", data=(FIXTURES / "ai_labels.jsonl").read_bytes(),
                                file_name="ai_labels.jsonl", dataset_name="LiveClin", release_label="l2",
                                taxonomy="liveclin@1")
    assert refused.status == "refused"


@pytest.mark.django_db
def test_it_offers_the_taxonomy_on_the_upload_page(client, admin) -> None:
    client.force_login(admin)
    page = client.get(reverse("cases:import_upload"))
    assert page.status_code == 200 and 'name="taxonomy"' in page.content.decode()
    assert "ai-labels" in page.content.decode() and "liveclin-labels" in page.content.decode()


@pytest.mark.django_db
def test_it_shows_taxonomies_and_labels_read_only_in_the_admin(labelled_cases, client, admin) -> None:
    import_file("liveclin-labels", LABELLED)
    admin.is_staff = admin.is_superuser = True
    admin.save()
    client.force_login(admin)
    for name in ("taxonomy", "taxonomynode", "ailabel"):
        changelist = reverse(f"admin:cases_{name}_changelist")
        assert client.get(changelist).status_code == 200
        assert client.get(changelist, {"q": "C41"}).status_code == 200
        assert client.get(reverse(f"admin:cases_{name}_add")).status_code == 403
    node = AILabel.objects.filter(level=3).first().node
    assert client.get(reverse("admin:cases_taxonomynode_change", args=[node.pk])).status_code == 200
    assert client.post(reverse("admin:cases_taxonomynode_change", args=[node.pk]), {"name": "x"}).status_code == 403
