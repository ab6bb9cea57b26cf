"""The structure of docs/architecture.md holds, and each contract that keeps it catches a break:
the import-linter contracts of pyproject.toml and the size rules of `dev.py lint`."""

import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("medreview", "accounts", "cases", "annotation", "graders", "agreement", "liveclin", "demo", "devtools")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is a test dependency")


def _copy_tree(target: Path) -> None:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, target / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", target / "pyproject.toml")


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_it_keeps_every_layering_contract_of_the_tree(tmp_path: Path) -> None:
    _copy_tree(tmp_path)
    result = _lint_imports(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def _broken_contracts(stdout: str) -> str:
    """The part of lint-imports' report that lists the broken contracts by name."""
    return stdout.split("Broken contracts", 1)[1] if "Broken contracts" in stdout else ""


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("agreement/metrics/_probe.py", "from annotation import models\n", "Statistics are pure"),
        ("agreement/metrics/_probe.py", "import django.db\n", "Statistics are pure"),
        ("cases/_probe.py", "from graders import models\n", "Apps are layered"),
        ("accounts/_probe.py", "from annotation.rating import selectors\n", "Apps are layered"),
        ("annotation/_probe.py", "from liveclin import phases\n", "Apps are layered"),
        ("medreview/drf.py", "from cases import models\n", "Platform modules of medreview import no app"),
        # every module of medreview, a new one too, not a listed few
        ("medreview/_probe.py", "from accounts import roles\n", "Platform modules of medreview import no app"),
        ("annotation/outcomes/_probe.py", "from annotation.rating import selectors\n", "Review workflows are layered"),
        ("annotation/studies/_probe.py", "from annotation.inspection import selectors\n", "Review workflows are layered"),
        ("annotation/inspection/_probe.py", "from annotation.rating import views\n", "Views and API views are entry points"),
        ("annotation/rating/_probe.py", "from annotation.studies import api\n", "Views and API views are entry points"),
        ("agreement/_probe.py", "from cases import views\n", "Views and API views are entry points"),
        ("annotation/outcomes/_probe.py", "from annotation import locks\n", "Outcomes read review state and never write it"),
        ("annotation/inspection/_probe.py", "from annotation.rating.services import queue\n", "Inspection reads rating's selectors"),
        ("cases/exporters/_probe.py", "import django\n", "Curation writers and the audit chain are pure"),
        ("graders/kinds/_probe.py", "from graders.jobs import runner\n", "No import cycles"),
    ],
)
def test_it_fails_lint_when_a_module_imports_against_a_contract(
    tmp_path: Path, module: str, line: str, contract: str
) -> None:
    _copy_tree(tmp_path)
    path = tmp_path / module
    path.write_text((path.read_text() if path.exists() else "") + line)
    result = _lint_imports(tmp_path)
    assert result.returncode != 0
    assert contract in _broken_contracts(result.stdout), result.stdout


def test_it_keeps_every_package_and_module_within_the_size_rules(dev_py: ModuleType) -> None:
    assert dev_py.size_problems() == []


def test_it_flags_a_package_holding_more_than_fifteen_modules(tmp_path: Path, dev_py: ModuleType) -> None:
    package = tmp_path / "annotation" / "crowded"
    package.mkdir(parents=True)
    for n in range(dev_py.MAX_PACKAGE_MODULES):  # __init__.py plus 15 modules: 16
        (package / f"part_{n}.py").write_text("")
    (package / "__init__.py").write_text("")
    (tmp_path / "annotation" / "__init__.py").write_text("")
    assert dev_py.size_problems(tmp_path) == [
        "annotation/crowded/: 16 modules at its top level (> 15); group them into packages along their seams"
    ]
    (package / "part_0.py").unlink()
    assert dev_py.size_problems(tmp_path) == []


def test_it_flags_a_module_over_six_hundred_lines(tmp_path: Path, dev_py: ModuleType) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "__init__.py").write_text("")
    (tmp_path / "cases" / "long.py").write_text("x = 1\n" * 601)
    assert dev_py.size_problems(tmp_path) == ["cases/long.py: 601 lines (> 600); grow it into a package"]
