"""Physicians' labels collected outside medreview named by what the researcher has (issue 24): the
dataset's case id, the answering model, a criterion's position in the rubric; every row naming
nothing in the study refused with its file, record and field, writing nothing."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import Assignment, Rating, StudyMember
from annotation.studies.outside_labels import physician_labels_import
from tests.agreement.builders import case_item, make_study, response_item
from tests.conftest import login
from tests.factories import make_case, make_response

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(physician_a, physician_b):
    study = make_study(tasks=("narrative-quality", "grader-reliability"))
    for user in (physician_a, physician_b):
        StudyMember.objects.create(study=study, user=user, role=StudyMember.Role.RATER)
    first = make_case(external_id="MDB-1")
    case_item(study, first)
    case_item(study, make_case(external_id="MDB-2"))
    response_item(study, make_response(first, model_name="gpt-4.1"))
    return study


def test_it_imports_labels_named_by_dataset_case_id_model_and_criterion_position(study):
    data = (b"case_id,model,rater,task,criterion,label\n"
            b"MDB-1,,R-physician_a,narrative-quality,,2\n"
            b"MDB-2,,R-physician_a,narrative-quality,,1\n"
            b"MDB-1,gpt-4.1,R-physician_b,grader-reliability,2,met\n")
    report = physician_labels_import(study=study, data=data, file_name="labels.csv")
    assert report.status == "imported", [str(e) for e in report.errors]
    second = study.items.get(key__startswith="response").revision.criteria.order_by("order")[1]
    rating = Rating.objects.get(task__slug="grader-reliability")
    assert rating.field_key == f"criterion:{second.pk}" and rating.criterion_id == second.pk
    assert rating.label == "met" and rating.assignment.item.response.model_name == "gpt-4.1"
    assert Assignment.objects.filter(imported=True).count() == 3


def test_it_refuses_rows_naming_nothing_in_the_study_with_located_errors(study):
    data = (b"case_id,model,rater,task,criterion,label\n"
            b"MDB-1,,R-physician_a,narrative-quality,,2\n"
            b"MDB-9,,R-physician_a,narrative-quality,,2\n"
            b"MDB-1,claude-3,R-physician_b,grader-reliability,1,met\n"
            b"MDB-1,gpt-4.1,R-physician_b,grader-reliability,7,met\n")
    report = physician_labels_import(study=study, data=data, file_name="labels.csv")
    assert report.status == "refused"
    assert [(e.record, e.field) for e in report.errors] == [(3, "case_id"), (4, "case_id"), (5, "criterion")]
    messages = [str(e.message) for e in report.errors]
    assert f"no item for case 'MDB-9' in study {study.pk}" in messages[0]
    assert "claude-3" in messages[1]
    assert "case 'MDB-1' has 3 rubric criteria" in messages[2]
    assert not Assignment.objects.filter(imported=True).exists()


def test_it_still_reads_item_keys(study):
    item = study.items.get(key__startswith="case", revision__case__external_id="MDB-2")
    data = f"item_key,rater,task,field,label\n{item.key},R-physician_a,narrative-quality,,0\n".encode()
    assert physician_labels_import(study=study, data=data, file_name="labels.csv").status == "imported"


def test_it_imports_dataset_case_ids_through_the_documented_api_path(client, admin, study):
    from django.core.files.uploadedfile import SimpleUploadedFile

    url = f"/api/review/studies/{study.pk}/labels/import/"
    assert url == reverse("annotation_api:study_labels_import", args=[study.pk])
    upload = SimpleUploadedFile("labels.csv", b"case_id,rater,task,label\nMDB-1,R-physician_a,narrative-quality,2\n")
    response = login(client, admin).post(url, {"file": upload})
    assert response.status_code == 201, response.json()
