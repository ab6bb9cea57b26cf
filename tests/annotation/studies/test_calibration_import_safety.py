"""Issue 22, finding 4: the calibration import (command and page) reads its JSON through the safe path:
a list that is not of {item, expected} objects, deep nesting, huge integers, NUL, lone surrogates and
duplicate keys are located errors (file, row, field), never a 500 or a traceback, and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from annotation.models import Item
from tests.annotation.builders import make_running_study
from tests.conftest import login

pytestmark = pytest.mark.django_db

GOOD = {"narrative-quality|": {"label": "1", "explanation": "x"}}
DEEP = "[" * 5000 + "]" * 5000
CASES = {
    "a list of numbers": ("[1,2]", "row 1: expected an object"),
    "a list of keys": ('["case:3"]', "row 1: expected an object"),
    "a list of lists": ("[[1]]", "row 1: expected an object"),
    "not a list": ('{"item": "case:1"}', "expected a list of"),
    "deep nesting": (DEEP, "nested more than 100 levels deep"),
    "a 5,000-digit integer": ('[{"item": ' + "9" * 5000 + "}]", "more than 100 digits"),
    "NUL": ('[{"item": "case:1", "expected": {"narrative-quality|": {"label": "1", "explanation": "a\\u0000b"}}}]',
            "row 1, field expected.narrative-quality|.explanation"),
    "a lone surrogate": ('[{"item": "case:1\\ud800", "expected": {}}]', "row 1, field item"),
    "a duplicate key": ('[{"item": "case:1", "item": "case:2", "expected": {}}]', "row 1"),
    "an over-long item key": (json.dumps([{"item": "k" * 101, "expected": GOOD}]), "row 1, field item"),
    "a label that is not text": ('[{"item": "case:1", "expected": {"narrative-quality|": {"label": [1]}}}]',
                                 "row 1, field expected.narrative-quality|.label"),
    "not JSON": ("[{", "not JSON"),
}


@pytest.fixture
def study(admin, physician_a):
    return make_running_study(admin, [physician_a], cases=2, tasks=("narrative-quality",))


@pytest.mark.parametrize("text,expected", CASES.values(), ids=CASES.keys())
def test_it_refuses_a_bad_calibration_file_on_the_command_line(study, admin, tmp_path: Path, text, expected) -> None:
    path = tmp_path / "calibration.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    with pytest.raises(CommandError) as refused:
        call_command("import_calibration", str(study.pk), str(path), "--admin", admin.username)
    assert "calibration.json" in str(refused.value) and expected in str(refused.value)
    assert not Item.objects.filter(study=study, status=Item.Status.CALIBRATION).exists()


@pytest.mark.parametrize("text,expected", CASES.values(), ids=CASES.keys())
def test_it_refuses_a_bad_calibration_file_on_the_page(study, admin, client, text, expected) -> None:
    response = login(client, admin).post(reverse("annotation:calibration_upload", args=[study.pk]), {"rows": text},
                                         follow=True)
    assert response.status_code == 200
    shown = " ".join(str(m) for m in response.context["messages"])
    assert expected in shown
    assert not Item.objects.filter(study=study, status=Item.Status.CALIBRATION).exists()


def test_it_still_imports_a_good_calibration_file(study, admin, client) -> None:
    key = study.items.order_by("pk").first().key
    response = login(client, admin).post(reverse("annotation:calibration_upload", args=[study.pk]),
                                         {"rows": json.dumps([{"item": key, "expected": GOOD}])}, follow=True)
    assert response.status_code == 200
    assert study.items.get(key=key).status == Item.Status.CALIBRATION
