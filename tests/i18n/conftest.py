"""The i18n tests read the compiled catalogues: compile them once per session (pure Python)."""

from pathlib import Path

import pytest

from medreview.i18n.msgfmt import compile_all

LOCALE = Path(__file__).resolve().parents[2] / "locale"


@pytest.fixture(scope="session", autouse=True)
def compiled_catalogues() -> None:
    compile_all(LOCALE)
