"""`check --deploy` refuses a server whose catalogues are missing or stale; `compile_catalogues`
compiles them in pure Python; the compiled catalogue serves Chinese."""

from __future__ import annotations

import gettext
import io
import os
import shutil
from pathlib import Path

from django.core.checks import run_checks
from django.core.management import call_command
from django.test import override_settings

SHIPPED = Path(__file__).resolve().parents[2] / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"


def _locale(tmp_path: Path) -> Path:
    messages = tmp_path / "locale" / "zh_Hans" / "LC_MESSAGES"
    messages.mkdir(parents=True)
    shutil.copy(SHIPPED, messages / "django.po")
    return tmp_path / "locale"


def _errors() -> dict[str, str]:
    return {e.id: e.msg for e in run_checks(include_deployment_checks=True, tags=["translation"])}


def test_it_fails_the_deploy_check_until_the_catalogue_is_compiled(tmp_path):
    locale = _locale(tmp_path)
    with override_settings(LOCALE_PATHS=[locale]):
        errors = _errors()
        assert list(errors) == ["medreview.E002"] and "zh-hans is not compiled" in errors["medreview.E002"]
        out = io.StringIO()
        call_command("compile_catalogues", stdout=out)
        assert "1 compiled, 0 already current." in out.getvalue()
        assert _errors() == {}


def test_a_catalogue_older_than_its_po_fails_the_check_and_is_recompiled(tmp_path):
    locale = _locale(tmp_path)
    with override_settings(LOCALE_PATHS=[locale]):
        call_command("compile_catalogues", stdout=io.StringIO())
        po = locale / "zh_Hans" / "LC_MESSAGES" / "django.po"
        mo = po.with_suffix(".mo")
        os.utime(mo, (po.stat().st_mtime - 60, po.stat().st_mtime - 60))  # the .po changed after compiling
        assert "compiled from an older .po" in _errors()["medreview.E002"]
        out = io.StringIO()
        call_command("compile_catalogues", stdout=out)
        assert "1 compiled" in out.getvalue() and _errors() == {}
    catalogue = gettext.GNUTranslations(mo.open("rb"))
    assert catalogue.gettext("Sign in") == "登录"


def test_a_language_without_any_catalogue_fails_the_check(tmp_path):
    with override_settings(LOCALE_PATHS=[_locale(tmp_path)], LANGUAGES=[("en", "English"), ("ja", "日本語")]):
        errors = _errors()
    assert list(errors) == ["medreview.E001"] and "ja" in errors["medreview.E001"]


def test_the_check_runs_only_for_deployment(tmp_path):
    with override_settings(LOCALE_PATHS=[_locale(tmp_path)]):
        assert [e.id for e in run_checks(tags=["translation"])] == []
