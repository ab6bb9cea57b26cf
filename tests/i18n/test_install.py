"""Production serves Chinese: a clean copy of the checkout, `pip install .` into a new virtual
environment and the README's gunicorn recipe, as typed, serve the sign-in page in Chinese to a
browser that asks for it. Before `compile_catalogues`, `check --deploy` refuses the server.

Slow (a new environment: about a minute with pip's local wheels); pip reads only the package
registries the machine's pip is configured with."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LONG_RUNNING = ("db_worker",)  # a worker never returns; the recipe starts it beside the server


def _clean_copy(target: Path) -> None:
    """The files a clone would have: tracked and new files, nothing ignored (.venv, .mo, databases)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def _recipe() -> tuple[list[list[str]], list[str]]:
    """(manage.py commands, gunicorn command) of the README's "Running under gunicorn" block."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Running under gunicorn", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL).group(1)
    manage, gunicorn = [], []
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        if words[:1] == [".venv/bin/python"] and words[1] == "manage.py" and words[2] not in LONG_RUNNING:
            manage.append(words[1:])
        elif any(w.endswith("/gunicorn") for w in words):
            gunicorn = words[next(i for i, w in enumerate(words) if w.endswith("/gunicorn")):]
    return manage, gunicorn


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(url: str, language: str) -> str:
    request = urllib.request.Request(url, headers={"Accept-Language": language})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read().decode("utf-8")


def _wait_for(url: str, server: subprocess.Popen, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"gunicorn exited with {server.returncode}")
        try:
            _get(url, "en")
            return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"gunicorn did not answer {url} within {seconds} s")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    if shutil.which("git") is None:
        pytest.skip("needs git to list the checkout's files")
    base = tmp_path_factory.mktemp("install")
    checkout = base / "checkout"
    _clean_copy(checkout)
    python = checkout / ".venv" / "bin" / "python"
    subprocess.run([sys.executable, "-m", "venv", str(checkout / ".venv")], check=True, timeout=300)
    done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "."], cwd=checkout,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "MEDREVIEW_", "PYTEST"))
           and k not in ("DEBUG", "TASKS_BACKEND", "SECRET_KEY", "DATABASE_URL", "ALLOWED_HOSTS", "PYTHONPATH")}
    env.update({"DATABASE_URL": f"sqlite:///{base / 'db.sqlite3'}", "SECRET_KEY": "install-test-" + "x" * 40,
                "ALLOWED_HOSTS": "127.0.0.1", "SECURE_COOKIES": "0", "STATIC_ROOT": str(base / "static")})
    return checkout, python, env


def _manage(checkout: Path, python: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(python), *args], cwd=checkout, env=env, capture_output=True, text=True, timeout=600)


def test_it_refuses_deployment_until_the_catalogues_are_compiled(installed) -> None:
    checkout, python, env = installed
    done = _manage(checkout, python, env, "manage.py", "check", "--deploy")
    assert done.returncode != 0
    assert "medreview.E002" in done.stderr and "zh-hans" in done.stderr and "compile_catalogues" in done.stderr


def test_the_readme_gunicorn_recipe_serves_the_chinese_sign_in_page(installed) -> None:
    checkout, python, env = installed
    manage, gunicorn = _recipe()
    assert ["manage.py", "compile_catalogues"] in manage, "the README's recipe must compile the catalogues"
    for args in [["manage.py", "migrate", "--noinput"], *manage]:  # migrate: the section before
        done = _manage(checkout, python, env, *args)
        assert done.returncode == 0, f"{args}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    done = _manage(checkout, python, env, "manage.py", "check", "--deploy")
    assert done.returncode == 0 and "medreview.E" not in done.stderr, done.stderr[-2000:]

    port = _free_port()
    bind = gunicorn.index("--bind")
    command = [str(checkout / gunicorn[0]), *gunicorn[1:bind], "--bind", f"127.0.0.1:{port}", "--workers", "1"]
    server = subprocess.Popen(command, cwd=checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_for(f"http://127.0.0.1:{port}/healthz", server)
        page = _get(f"http://127.0.0.1:{port}/accounts/login/", "zh-Hans")
        english = _get(f"http://127.0.0.1:{port}/accounts/login/", "en")
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert re.search(r"<title>\s*登录", page), page[:500]
    assert re.search(r'<button type="submit"[^>]*>\s*登录\s*</button>', page)
    assert "用户名" in page and "Sign in" not in page
    assert re.search(r"<title>\s*Sign in", english)
