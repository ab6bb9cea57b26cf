"""The layering of docs/architecture.md holds, and the contracts that keep it would catch a break."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("medreview", "accounts", "cases", "annotation", "graders", "agreement", "demo", "devtools")
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


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("agreement/metrics/_probe.py", "from annotation import models\n", "Statistics are pure"),
        ("agreement/metrics/_probe.py", "import django.db\n", "Statistics are pure"),
        ("cases/_probe.py", "from graders import models\n", "Apps are layered"),
        ("accounts/_probe.py", "from annotation import selectors\n", "Apps are layered"),
        ("medreview/drf.py", "from cases import models\n", "Platform modules of medreview import no app"),
    ],
)
def test_it_fails_lint_when_a_module_imports_against_the_layers(
    tmp_path: Path, module: str, line: str, contract: str
) -> None:
    _copy_tree(tmp_path)
    path = tmp_path / module
    path.write_text((path.read_text() if path.exists() else "") + line)
    result = _lint_imports(tmp_path)
    assert result.returncode != 0
    assert f"{contract}" in result.stdout
    assert "BROKEN" in result.stdout
