"""How a benchmark's cost grows with its work: peak memory per step and the log-log slope.

Every benchmark runs at three sizes (1x, 3x, 10x of its reference work) and prints, per measured
figure, the time and peak memory at each size and the slope of log(time) against log(size): 1.0 is
linear growth, 2.0 quadratic, below 1 a fixed cost that the work does not yet dominate. A regression
in growth shows as a larger slope even when the 1x figure still meets its target.
"""

from __future__ import annotations

import math
import os
import resource
from collections.abc import Sequence
from dataclasses import dataclass, field


def parse_sizes(text: str) -> list[float]:
    """"1,3,10" -> [1.0, 3.0, 10.0]; refuses a size that is not a positive number."""
    sizes = []
    for part in text.split(","):
        try:
            value = float(part)
        except ValueError:
            raise SystemExit(f"--sizes: {part!r} is not a number (e.g. --sizes 1,3,10)") from None
        if not value > 0:
            raise SystemExit(f"--sizes: {part!r} must be above 0")
        sizes.append(value)
    return sizes


def reset_peak_rss(pid: int | str = "self") -> bool:
    """Reset the process's peak resident memory (Linux: /proc/<pid>/clear_refs, 5); False if unsupported."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _vmhwm_mb(pid: int | str) -> float | None:
    """A process's peak resident memory (VmHWM) in MB; None where /proc does not tell it."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def peak_rss_mb(pid: int | str = "self") -> float:
    """Peak resident memory (VmHWM) since start or the last reset, in MB."""
    peak = _vmhwm_mb(pid)
    return peak if peak is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_pids(pid: int) -> list[int]:
    """A process's children (a gunicorn master's workers); none once it has gone."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def largest_peak_rss_mb(pids: Sequence[int]) -> float | None:
    """The largest peak resident memory of these processes, MB (those gone left out); None if none is left."""
    return max((mb for mb in map(_vmhwm_mb, pids) if mb is not None), default=None)


def slope(sizes: Sequence[float], values: Sequence[float]) -> float | None:
    """Least-squares slope of log(value) on log(size); None with fewer than two usable points."""
    points = [(math.log(s), math.log(v)) for s, v in zip(sizes, values, strict=True) if s > 0 and v and v > 0]
    if len(points) < 2 or len({x for x, _ in points}) < 2:
        return None
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / sxx


def slope_text(sizes: Sequence[float], values: Sequence[float], *, missing: str = "nan") -> str:
    """`slope` with two decimals, or `missing` where it is undefined."""
    k = slope(sizes, values)
    return missing if k is None else f"{k:.2f}"


@dataclass
class Growth:
    """Figures of one benchmark over its sizes: name -> size -> (seconds, peak MB)."""

    title: str
    unit: str = "x"
    rows: dict[str, dict[float, tuple[float, float | None]]] = field(default_factory=dict)

    def add(self, name: str, size: float, seconds: float, peak_mb: float | None = None) -> None:
        self.rows.setdefault(name, {})[size] = (seconds, peak_mb)

    def print(self) -> None:
        sizes = sorted({s for by_size in self.rows.values() for s in by_size})
        print(f"\n{self.title}: time (s) and peak memory (MB) at each size, log-log slope of time")
        head = "".join(f"{f'{s:g}{self.unit}':>20s}" for s in sizes)
        print(f"  {'figure':44s}{head}  {'slope':>6s}")
        for name, by_size in self.rows.items():
            cells = []
            for s in sizes:
                if s not in by_size:
                    cells.append(f"{'-':>20s}")
                    continue
                t, mb = by_size[s]
                cells.append(f"{f'{t:.3f} s' + (f' {mb:,.0f} MB' if mb is not None else ''):>20s}")
            shown = slope_text([s for s in sizes if s in by_size], [by_size[s][0] for s in sizes if s in by_size],
                               missing="-")
            print(f"  {name:44s}{''.join(cells)}  {shown:>6s}")
        print(f"  (machine: {os.cpu_count()} cores, load average "
              f"{', '.join(f'{x:.2f}' for x in os.getloadavg())} at the end)")
