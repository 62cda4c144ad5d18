"""This machine, as the tools measure it: the cores a process may use, and percentiles of
timings taken on it. On the ground floor: it imports nothing from the package.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence


def available_cores() -> int:
    """The CPU cores this process may run on (``os.sched_getaffinity``: a ``taskset`` or a
    container's CPU set counts; ``os.cpu_count`` where there is none), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile of ``values`` (``fraction`` in (0, 1]): the smallest value
    that at least ``fraction`` of them do not exceed. ValueError when there are none."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]
