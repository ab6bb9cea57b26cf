#!/usr/bin/env python3
"""medreview's developer entry point; needs nothing but Python 3.11.

    python3 dev.py demo     create .venv, install, migrate, load demo data, run the app (SQLite)
    python3 dev.py test     install test dependencies and run the whole test suite
    python3 dev.py lint     ruff check

DATABASE_URL selects the database (default: SQLite file db.sqlite3).
"""

import hashlib
import os
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


def demo() -> None:
    ensure_venv("")
    env = {**os.environ, "DEBUG": os.environ.get("DEBUG", "1")}
    # The demo graders call a local fake OpenAI-compatible server; it accepts any key.
    env.setdefault("DEMO_OPENAI_API_KEY", "demo")
    run(str(PY), "manage.py", "migrate", "--noinput", env=env)
    run(str(PY), "manage.py", "load_demo", env=env)
    # Imports and grading jobs run as background tasks: one worker, and the fake endpoint the
    # demo graders point at, run beside the server.
    helpers = [
        subprocess.Popen([str(PY), "manage.py", "db_worker", "--queue-name", "*"], cwd=ROOT, env=env),
        subprocess.Popen([str(PY), "manage.py", "fake_openai_server", "--port", "8765"], cwd=ROOT, env=env),
    ]
    try:
        run(str(PY), "manage.py", "runserver", os.environ.get("MEDREVIEW_ADDR", "127.0.0.1:8000"), env=env)
    except KeyboardInterrupt:
        pass
    finally:
        for process in helpers:
            process.terminate()


def test(args: list[str]) -> int:
    ensure_venv("test")
    return subprocess.run([str(PY), "-m", "pytest", *args], cwd=ROOT).returncode


def lint() -> int:
    ensure_venv("test")
    return subprocess.run([str(PY), "-m", "ruff", "check", "."], cwd=ROOT).returncode


def main() -> None:
    command = sys.argv[1] if len(sys.argv) > 1 else "help"
    if command == "demo":
        demo()
    elif command == "test":
        sys.exit(test(sys.argv[2:]))
    elif command == "lint":
        sys.exit(lint())
    else:
        print(__doc__)
        sys.exit(0 if command in {"help", "-h", "--help"} else 2)


if __name__ == "__main__":
    main()
