"""A small registry of named checks.

Audit modules (in the ``audits`` package, or a user's own package) register checks with :func:`register`.
The engine never imports ``audits``: :func:`load_plugins` imports every module named under the entry-point
group ``htdp_verify.checks`` (``audits`` declares itself there in ``pyproject.toml``), and users can add theirs.

A check is a function ``f(ctx: RunContext) -> CheckResult | list[CheckResult]``.
"""

from __future__ import annotations

import importlib
import time
import traceback
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import numpy as np

from .claims import Provenance

__all__ = [
    "Check",
    "RunContext",
    "register",
    "get_checks",
    "all_checks",
    "load_plugins",
    "derive_seed",
    "execute_check",
    "PROFILES",
]

PROFILES = ("quick", "full")
ENTRY_POINT_GROUP = "htdp_verify.checks"


@dataclass
class RunContext:
    """What a check receives: the ``profile`` (``"quick"`` or ``"full"``), its own ``rng`` and integer ``seed``
    (derived from the run seed and the check name, so checks are reproducible one by one), and ``out_dir``
    where it may write figures (return their paths relative to ``out_dir`` in ``CheckResult.figures``).

    Parameters
    ----------
    profile : str
        ``"quick"`` or ``"full"``.
    seed : int
        The check's own seed.
    rng : numpy.random.Generator
        The check's own generator.
    out_dir : pathlib.Path
        Where the check may write figures.
    progress : bool, default True
        Whether progress may be shown.
    """

    profile: str
    seed: int
    rng: np.random.Generator
    out_dir: Path
    progress: bool = True

    @property
    def quick(self) -> bool:
        return self.profile == "quick"


@dataclass(frozen=True)
class Check:
    """A registered check.

    Parameters
    ----------
    name : str
        Dotted name.
    func : callable
        The function run with a :class:`RunContext`.
    description : str
        One line on what it checks.
    provenance : Provenance, optional
        Where the claim comes from.
    tags : tuple, default ()
        Extra selectors.
    """

    name: str
    func: Callable
    description: str
    provenance: Provenance = field(default_factory=Provenance)
    tags: tuple = ()

    def line(self) -> str:
        return f"{self.name:<48} {self.description}  [{self.provenance}]"


_REGISTRY: dict[str, Check] = {}


def register(
    name: str, *, description: str, provenance: Provenance | dict | None = None, tags: tuple[Any, ...] = ()
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: register ``func`` as the check ``name`` (dotted, e.g. ``"stats.cp_coverage"``).

    Parameters
    ----------
    name : str
        The check's dotted name; its first part is the suite.
    description : str
        One line on what it checks.
    provenance : Provenance or dict, optional
        Where the claim comes from.
    tags : tuple, default ()
        Extra selectors for ``htdp-verify run``.

    Returns
    -------
    callable
        The decorator; the decorated function receives a :class:`RunContext` and returns ``CheckResult`` objects.
    """
    if not isinstance(name, str) or not name or " " in name:
        raise ValueError(f"name must be a non-empty string without spaces, got {name!r}")
    if isinstance(provenance, dict):
        provenance = Provenance(**provenance)

    def deco(func):
        if name in _REGISTRY and _REGISTRY[name].func is not func:
            raise ValueError(f"a check named {name!r} is already registered")
        _REGISTRY[name] = Check(name, func, description, provenance or Provenance(), tuple(tags))
        return func

    return deco


_loaded = False


def load_plugins() -> list[str]:
    """Import every module declared under the ``htdp_verify.checks`` entry-point group (once).

    Returns
    -------
    list of str
        The entry-point names loaded by this call (empty when they were loaded before).
    """
    global _loaded
    names: list[str] = []
    if _loaded:
        return names
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        importlib.import_module(ep.value.split(":")[0])
        names.append(ep.name)
    _loaded = True
    return names


def all_checks() -> list[Check]:
    load_plugins()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def get_checks(selectors: Any = None) -> list[Check]:
    """Checks whose name equals a selector or starts with ``selector + "."`` (or a tag equals it).

    Parameters
    ----------
    selectors : sequence of str, optional
        Names, prefixes or tags; none: every registered check. An unknown selector raises ``ValueError`` listing what
        exists.

    Returns
    -------
    list of Check
        The selected checks, each once, selector by selector.
    """
    checks = all_checks()
    if not selectors:
        return checks
    chosen: list[Check] = []
    for sel in selectors:
        hit = [c for c in checks if c.name == sel or c.name.startswith(sel + ".") or sel in c.tags]
        if not hit:
            raise ValueError(
                f"no registered check matches {sel!r}; `htdp-verify list` shows them "
                f"(known prefixes: {sorted({c.name.split('.')[0] for c in checks})})"
            )
        chosen += [c for c in hit if c not in chosen]
    return chosen


def derive_seed(seed: int, name: str) -> int:
    """The seed a check gets: one ``SeedSequence`` entropy from the run seed and the check's name.

    Never from its position in the run, so a check reproduces alone (``htdp-verify run NAME --seed S``), inside a
    full run, and in any worker process of a parallel run exactly alike.

    Parameters
    ----------
    seed : int
        The run seed.
    name : str
        The check's name.

    Returns
    -------
    int
        The check's seed.
    """
    return int(np.random.SeedSequence([seed, zlib.crc32(name.encode())]).generate_state(1, np.uint64)[0] >> 1)


def execute_check(
    check: Check, *, profile: str, seed: int, out_dir: Path, progress: bool = True, func: Callable | None = None
) -> tuple[int, list]:
    """Run one check with its own seed (:func:`derive_seed` of the run ``seed``) and return ``(check seed, results)``.

    A check that raises, or returns something other than ``CheckResult`` objects, gives one ``"error"`` result
    holding the traceback (a check that cannot run is reported, not hidden).  ``func`` replaces ``check.func``
    (a worker process runs the function it was sent).  The same code runs the check serially and in workers.

    Parameters
    ----------
    check : Check
        The check.
    profile : str
        ``"quick"`` or ``"full"``.
    seed : int
        The run seed.
    out_dir : pathlib.Path
        The report folder.
    progress : bool, default True
        Whether the check may show progress.
    func : callable, optional
        Replaces ``check.func``.

    Returns
    -------
    tuple
        ``(check seed, results)``.
    """
    from .results import CheckResult

    s = derive_seed(seed, check.name)
    ctx = RunContext(profile=profile, seed=s, rng=np.random.default_rng(s), out_dir=Path(out_dir), progress=progress)
    t0 = time.perf_counter()
    try:
        out = (func or check.func)(ctx)
        out = out if isinstance(out, list) else [out]
        for r in out:
            if not isinstance(r, CheckResult):
                raise TypeError(f"check {check.name!r} returned {type(r).__name__}, expected CheckResult")
    except Exception as exc:
        out = [error_result(check, s, time.perf_counter() - t0, f"could not run: {exc}", traceback.format_exc())]
    for r in out:  # a check may give several results: keep which check reproduces each
        if r.name != check.name and isinstance(r.details, dict):
            r.details.setdefault("check", check.name)
    return s, out


def error_result(check: Check, seed: int, seconds: float, summary: str, error: str):
    """The ``"error"`` result of a check that could not run (``details['error']``: the traceback or message)."""
    from .results import CheckResult

    return CheckResult(
        name=check.name,
        verdict="error",
        seconds=seconds,
        seed=seed,
        provenance=check.provenance,
        summary=summary,
        details={"error": error},
    )
