"""numba compilation of the kernels, cached on disk where numba can.

Compiling costs every fresh process (each worker) a noticeable delay at the first score, so
``cache=True`` stores the machine code in ``__pycache__`` beside the kernel's module and later
processes load it instead. If neither ``__pycache__`` nor numba's user-wide cache directory is
writable, numba cannot cache at all; :func:`compiled` then compiles in memory in every process
instead of failing at import. ``NUMBA_CACHE_DIR`` redirects the cache.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import njit


def compiled(function: Callable[..., Any]) -> Callable[..., Any]:
    """``njit(cache=True, nogil=True)``, or without the cache where numba finds no writable
    cache directory. Kernels release the GIL, so callers may run them in threads."""
    try:
        return njit(cache=True, nogil=True)(function)
    except RuntimeError:  # numba: "cannot cache function ...: no locator available"
        return njit(nogil=True)(function)
