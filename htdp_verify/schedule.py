"""Which registered checks run together in a parallel run, and in which order (``htdp-verify run --workers N``).

Some checks share an in-process cache: several claims tested on one Monte Carlo sweep, computed once by the first
of them and read by the others (an ``functools.lru_cache`` in the module that registers them).  In a serial run
the sweep is computed once; in a parallel run each worker process has its own cache, so checks of one sweep that
land on different workers compute it again, and that is pure waste (the sweep's seed does not depend on which
check computes it, so every copy gives the same numbers).  Such checks declare a *cache group*
(:func:`shares_cache`), and :func:`check_units` makes each group one unit of work: its checks run one after the
other in the same worker, in the order given (the serial run's order), and the sweep is computed once there.  Units
are submitted longest expected first (:func:`unit_order`, the rule of :func:`submission_order`
with a unit's cost the sum of its checks'; :func:`submission_order` orders single checks).

Nothing is written to disk: the cache lives in the worker's memory for the length of the unit, as it lives in the
parent's for a serial run.  Results do not change, because a group's checks read a cache that is a function of its
arguments only (declaring a group is a promise of that).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

__all__ = ["CACHE_GROUP_ATTR", "cache_group", "check_units", "shares_cache", "submission_order", "unit_order"]

#: the attribute of a check's function that names its cache group
CACHE_GROUP_ATTR = "cache_group"

F = TypeVar("F", bound=Callable[..., Any])


def shares_cache(group: str) -> Callable[[F], F]:
    """Decorator: the check's function shares an in-process cache with the other checks of ``group``.

    Put it under ``@register(...)``; a parallel run then runs the group's checks in one worker, one after the
    other, so the cache is filled once (see the module).

    Parameters
    ----------
    group : str
        Name of the group, e.g. the cached function's qualified name and its arguments.

    Returns
    -------
    callable
        The decorator; it returns the function unchanged but for the attribute ``cache_group``.
    """
    if not isinstance(group, str) or not group:
        raise ValueError(f"group must be a non-empty string, got {group!r}")

    def deco(func: F) -> F:
        setattr(func, CACHE_GROUP_ATTR, group)
        return func

    return deco


def cache_group(check: Any) -> str | None:
    """The cache group a check declares (:func:`shares_cache`), or ``None``.

    Parameters
    ----------
    check : Check
        A registered check (its ``func`` is read; an object without one has no group).

    Returns
    -------
    str or None
        The group's name.
    """
    return getattr(getattr(check, "func", None), CACHE_GROUP_ATTR, None)


def check_units(checks: Sequence[Any]) -> list[tuple]:
    """``checks`` as units of work: one tuple per cache group (its checks in the order given), one per other check.

    A unit stands where its first check stood.

    Parameters
    ----------
    checks : sequence of Check
        The checks, in the order of the run.

    Returns
    -------
    list of tuple
        The units, each a tuple of checks.
    """
    units: list[list] = []
    where: dict[str, int] = {}
    for c in checks:
        g = cache_group(c)
        if g is None:
            units.append([c])
        elif g in where:
            units[where[g]].append(c)
        else:
            where[g] = len(units)
            units.append([c])
    return [tuple(u) for u in units]


def submission_order(checks: Sequence[Any], costs: Mapping[str, float] | None = None) -> list:
    """``checks`` longest expected first (the LPT rule of scheduling: its makespan on m workers is at most
    4/3 - 1/(3m) times the optimum), so that no long check is left to run alone at the end.

    Checks without a cost (new since the run the costs come from) go first, in the order given: their length is
    unknown, and starting them early bounds the tail they can make.  Ties keep the order given.

    Parameters
    ----------
    checks : sequence of Check
        The checks, in the order of the run.
    costs : mapping, optional
        Expected seconds per check name; ``None`` or empty keeps the order given.

    Returns
    -------
    list
        The same checks, in the order to submit them.
    """
    if not costs:
        return list(checks)
    unknown = [c for c in checks if c.name not in costs]
    known = [c for c in checks if c.name in costs]
    known.sort(key=lambda c: -float(costs[c.name]))  # stable: ties keep the order given
    return unknown + known


def unit_order(units: Sequence[tuple], costs: Mapping[str, float] | None = None) -> list[tuple]:
    """``units`` longest expected first; a unit's cost is the sum of its checks' costs, and a unit with a check
    of unknown cost goes first (in the order given), as in :func:`submission_order`.

    Parameters
    ----------
    units : sequence of tuple
        The units (:func:`check_units`).
    costs : mapping, optional
        Expected seconds per check name; ``None`` or empty keeps the order given.

    Returns
    -------
    list of tuple
        The same units, in the order to submit them.
    """
    if not costs:
        return list(units)
    unknown = [u for u in units if any(c.name not in costs for c in u)]
    known = [u for u in units if all(c.name in costs for c in u)]
    known.sort(key=lambda u: -sum(float(costs[c.name]) for c in u))  # stable: ties keep the order given
    return unknown + known
