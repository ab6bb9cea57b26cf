#!/usr/bin/env python3
"""medreview's developer entry point; needs nothing but Python 3.11.

    python3 dev.py demo     create .venv, install, migrate, load demo data, run the app (SQLite)
    python3 dev.py manage   run a manage.py command in development mode (DEBUG on), e.g.
                            python3 dev.py manage import_cases generic demo/data/generic_cases.json
    python3 dev.py test     install test dependencies and run the whole test suite
    python3 dev.py lint     ruff, import-linter contracts, radon (no D), module size (<= 600 lines),
                            package size (<= 15 modules at a package's top level)

DATABASE_URL selects the database (default: SQLite file db.sqlite3).
"""

import ctypes
import hashlib
import os
import signal
import socket
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PY = VENV / "bin" / "python"


def run(*args: str, env: dict[str, str] | None = None) -> None:
    print("+", " ".join(args), flush=True)
    subprocess.run(args, cwd=ROOT, env=env, check=True)


def ensure_venv(extras: str) -> None:
    """Create the virtual environment and install, skipping pip when nothing changed."""
    if sys.version_info < (3, 11):
        sys.exit("medreview needs Python 3.11 or newer")
    if not PY.exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    stamp = VENV / f".installed-{extras or 'base'}"
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text() == digest:
        return
    run(str(PY), "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    target = f".[{extras}]" if extras else "."
    run(str(PY), "-m", "pip", "install", "--quiet", target)
    stamp.write_text(digest)


def dev_env() -> dict[str, str]:
    """Development mode: DEBUG on (so no SECRET_KEY is needed), the dev tools, the demo grader key."""
    env = {**os.environ, "DEBUG": os.environ.get("DEBUG", "1"), "MEDREVIEW_DEV_TOOLS": "1"}
    # The demo graders call a local fake OpenAI-compatible server; it accepts any key.
    env.setdefault("MEDREVIEW_GRADER_KEY_DEMO", "demo")
    return env


def manage(args: list[str]) -> int:
    ensure_venv("")
    return subprocess.run([str(PY), "manage.py", *args], cwd=ROOT, env=dev_env()).returncode


def _die_with_parent() -> None:
    """In the child, before exec: Linux sends it SIGTERM when dev.py ends, even by `kill -9`."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _refuse_busy_port(address: str, what: str, hint: str) -> None:
    host, _, port = address.rpartition(":")
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host or "127.0.0.1", int(port)))
        except OSError:
            sys.exit(f"dev.py: {address} is already in use ({what}); is another `dev.py demo` running? {hint}")


def _child(*args: str, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(args, cwd=ROOT, env=env, preexec_fn=_die_with_parent)


def compile_translations() -> None:
    """locale/*/LC_MESSAGES/*.po -> .mo in pure Python (no GNU gettext needed): English and Chinese
    are served from a fresh clone."""
    run(str(PY), "-m", "medreview.i18n.msgfmt", str(ROOT / "locale"))


def compile_bytecode() -> None:
    """Compile medreview's own modules ahead of time. Python caches bytecode itself unless
    PYTHONDONTWRITEBYTECODE is set (as in many containers and CI images), and then every command
    compiled the project again: 0.08 s of the 0.6 s `manage.py import_cases --help` takes
    (docs/performance.md). Up-to-date files are skipped, and a stale file is never used: Python
    checks each source's time stamp."""
    run(str(PY), "-m", "compileall", "-q", *APPS, "manage.py")


def demo() -> None:
    ensure_venv("")
    compile_translations()
    env = dev_env()
    address = os.environ.get("MEDREVIEW_ADDR", "127.0.0.1:8000")
    _refuse_busy_port(address, "the web server", "Stop it, or set MEDREVIEW_ADDR=127.0.0.1:8001.")
    _refuse_busy_port("127.0.0.1:8765", "the fake OpenAI server", "Stop the process holding it.")
    compile_bytecode()
    run(str(PY), "manage.py", "migrate", "--noinput", env=env)
    run(str(PY), "manage.py", "load_demo", env=env)
    # Imports and grading jobs run as background tasks: one worker, and the fake endpoint the
    # demo graders point at, run beside the server. Every child dies with dev.py (however it ends),
    # so no stray process keeps 8000 or 8765 for the next run; --noreload keeps runserver one process.
    children = [
        _child(str(PY), "manage.py", "db_worker", "--queue-name", "*", env=env),
        _child(str(PY), "-m", "devtools.fake_openai", "--port", "8765", env=env),
        _child(str(PY), "manage.py", "runserver", "--noreload", address, env=env),
    ]
    try:
        children[-1].wait()
    except KeyboardInterrupt:
        pass
    finally:
        for process in children:
            process.terminate()
        for process in children:
            process.wait(timeout=10)


def test(args: list[str]) -> int:
    ensure_venv("test")
    compile_translations()
    return subprocess.run([str(PY), "-m", "pytest", *args], cwd=ROOT).returncode


APPS = ("medreview", "accounts", "cases", "annotation", "graders", "agreement", "liveclin", "demo", "devtools")
MAX_MODULE_LINES = 600
# A folder's contents fit in one look (docs/architecture.md): past this, group modules into packages.
MAX_PACKAGE_MODULES = 15


def size_problems(root: Path = ROOT) -> list[str]:
    """Modules over MAX_MODULE_LINES lines and packages holding over MAX_PACKAGE_MODULES modules at
    their top level (migrations excepted: Django numbers them)."""
    problems = []
    for app in (app for app in APPS if (root / app).is_dir()):
        for path in sorted((root / app).rglob("*.py")):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if "migrations" not in path.parts and lines > MAX_MODULE_LINES:
                problems.append(f"{path.relative_to(root)}: {lines} lines (> {MAX_MODULE_LINES}); grow it into a package")
        for package in sorted({p.parent for p in (root / app).rglob("__init__.py")}):
            modules = sorted(package.glob("*.py"))
            if "migrations" not in package.parts and len(modules) > MAX_PACKAGE_MODULES:
                problems.append(f"{package.relative_to(root)}/: {len(modules)} modules at its top level "
                                f"(> {MAX_PACKAGE_MODULES}); group them into packages along their seams")
    return problems


def lint() -> int:
    """ruff, the import contracts (docs/architecture.md), and the size rules of the house style."""
    ensure_venv("test")
    failed = subprocess.run([str(PY), "-m", "ruff", "check", "."], cwd=ROOT).returncode != 0
    failed |= subprocess.run([str(VENV / "bin" / "lint-imports")], cwd=ROOT).returncode != 0
    apps = [app for app in APPS if (ROOT / app).is_dir()]
    complex_ = subprocess.run(
        [str(VENV / "bin" / "radon"), "cc", "-n", "D", "--exclude", "*/migrations/*", *apps],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    if complex_.strip():
        print("Functions graded D or worse by radon (split them along their seams):\n" + complex_)
        failed = True
    problems = size_problems()
    for problem in problems:
        print(problem)
    failed |= bool(problems)
    return 1 if failed else 0


def main() -> None:
    command = sys.argv[1] if len(sys.argv) > 1 else "help"
    if command == "demo":
        demo()
    elif command == "manage":
        sys.exit(manage(sys.argv[2:]))
    elif command == "test":
        sys.exit(test(sys.argv[2:]))
    elif command == "lint":
        sys.exit(lint())
    else:
        print(__doc__)
        sys.exit(0 if command in {"help", "-h", "--help"} else 2)


if __name__ == "__main__":
    main()
