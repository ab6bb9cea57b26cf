"""dev.py as a new user meets it (issue 9): its children die with it however it ends, and a busy
port is one clear line instead of three tracebacks."""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by init) counts as gone.
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "State:\tZ" in status.read_text())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")
def test_a_child_dies_when_dev_py_is_killed() -> None:
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import os, sys, time
        sys.path.insert(0, {str(ROOT)!r})
        import dev
        child = dev._child(sys.executable, "-c", "import time; time.sleep(60)", env=dict(os.environ))
        print(child.pid, flush=True)
        time.sleep(60)
    """)], stdout=subprocess.PIPE, text=True)
    child_pid = int(parent.stdout.readline())
    assert alive(child_pid)
    parent.send_signal(signal.SIGKILL)  # no cleanup code runs in dev.py
    parent.wait(timeout=10)
    deadline = time.monotonic() + 10
    while alive(child_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(child_pid)


def test_a_busy_port_is_one_clear_line() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "dev.py", "demo"], cwd=ROOT, capture_output=True, text=True, timeout=300,
            env={**os.environ, "MEDREVIEW_ADDR": f"127.0.0.1:{port}"},
        )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert f"127.0.0.1:{port} is already in use" in done.stderr
    assert "MEDREVIEW_ADDR" in done.stderr


def test_it_compiles_the_apps_so_a_command_reads_bytecode_where_python_writes_none(dev_py: ModuleType) -> None:
    """Where PYTHONDONTWRITEBYTECODE is set, Python never caches what it compiles: without
    `compile_bytecode` every `manage.py` start compiles medreview's modules again."""
    source = ROOT / "cases" / "importers" / "base.py"
    cached = Path(importlib.util.cache_from_source(str(source)))
    cached.unlink(missing_ok=True)
    dev_py.compile_bytecode()
    assert cached.exists()
    loaded = subprocess.run(
        [str(dev_py.PY), "-v", "-c", "import cases.importers.base"], cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, timeout=120,
    )
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    assert f"code object from '{cached}'" in loaded.stderr
