"""The demo studies: created once through the services, with data for the reports and the inspector."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from annotation.models import Item, Rating, Study

pytestmark = pytest.mark.django_db



def test_it_loads_running_demo_studies_with_first_round_ratings_idempotently():
    call_command("load_demo", stdout=StringIO())
    studies = {s.name: s for s in Study.objects.all()}
    assert {"Demo: LiveMedBench human validation", "Demo: grader reliability", "Demo: LiveClin question sets",
            "Demo: MEDIC Likert axes", "Demo: pairwise preference"} <= set(studies)
    assert all(s.status == Study.Status.RUNNING for s in studies.values())
    validation = studies["Demo: LiveMedBench human validation"]
    assert set(validation.memberships.values_list("user__username", "role")) == {
        ("physician1", "rater"), ("physician2", "rater"), ("inspector1", "inspector")
    }
    first_round = Rating.objects.filter(round=1, assignment__item__study__in=[
        validation, studies["Demo: grader reliability"]
    ])
    assert set(first_round.values_list("assignment__rater__username", flat=True)) == {"physician1", "physician2"}
    assert Item.objects.filter(status=Item.Status.INSPECTION).exists()
    counts = Rating.objects.count(), Study.objects.count()
    call_command("load_demo", stdout=StringIO())
    assert (Rating.objects.count(), Study.objects.count()) == counts
