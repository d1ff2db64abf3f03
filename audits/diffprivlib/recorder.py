"""Recording what one diffprivlib release does (the white-box ledger's instrument): :func:`record_mechanisms` wraps
``__init__`` of :class:`diffprivlib.mechanisms.DPMechanism` and every ``randomise`` defined in
:mod:`diffprivlib.mechanisms` (restored on exit) and fills a :class:`Ledger` with the mechanism instances created
and one :class:`MechanismCall` per outermost ``randomise`` call (class, ε, δ, sensitivity at call time).  The
composition of the recorded calls and the check against the claim are in :mod:`.ledger`, which re-exports these
names (Holohan et al. 2019, arXiv:1907.02444; diffprivlib 0.6.6).
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field

__all__ = ["MechanismCall", "Ledger", "record_mechanisms"]

_PATCH_LOCK = threading.Lock()


@dataclass
class MechanismCall:
    """One outermost ``randomise`` call: the instance (creation order), its class and its ε, δ, sensitivity."""

    instance: int
    mechanism: str
    epsilon: float
    delta: float
    sensitivity: float | None


@dataclass
class Ledger:
    """What one release did: the mechanism instances created (class names, creation order), the calls made, and
    the arguments of internal functions recorded by hooks (``hooks[name]`` = list of keyword dicts)."""

    created: list = field(default_factory=list)
    calls: list = field(default_factory=list)
    hooks: dict = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def mechanisms(self) -> list[dict]:
        """One row per instance: class, ε, δ, sensitivity (at its first call) and number of ``randomise`` calls."""
        rows = []
        for i, cls in enumerate(self.created):
            mine = [c for c in self.calls if c.instance == i]
            first = mine[0] if mine else None
            rows.append(
                {
                    "instance": i,
                    "mechanism": cls,
                    "calls": len(mine),
                    "epsilon": first.epsilon if first else None,
                    "delta": first.delta if first else None,
                    "sensitivity": first.sensitivity if first else None,
                }
            )
        return rows


def _float(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


@contextlib.contextmanager
def record_mechanisms(hooks: dict | None = None):
    """Record every diffprivlib mechanism created and used inside the block; yields a :class:`Ledger`.

    ``hooks``: ``{name: (module, function name, argument names)}`` of internal functions whose arguments to record
    (e.g. the bounds diffprivlib passes to a sub-step).  One recorder at a time per process (the patch is global);
    calls from other threads inside the block are recorded too."""
    import importlib

    import diffprivlib.mechanisms as M
    from diffprivlib.mechanisms.base import DPMechanism

    if not _PATCH_LOCK.acquire(blocking=False):
        raise RuntimeError("record_mechanisms is already active in this process (nested recorders are not supported)")
    ledger = Ledger()
    ids: dict[int, int] = {}
    active = threading.local()
    originals = []
    try:
        classes = {DPMechanism} | {c for c in vars(M).values() if isinstance(c, type) and issubclass(c, DPMechanism)}
        orig_init = DPMechanism.__init__
        alive: list = []  # recorded instances are kept alive so that id() stays unique within the block

        def init(self, *args, **kwargs):
            orig_init(self, *args, **kwargs)
            with ledger._lock:
                if id(self) not in ids:
                    ids[id(self)] = len(ledger.created)
                    ledger.created.append(type(self).__name__)
                    alive.append(self)

        DPMechanism.__init__ = init
        originals.append((DPMechanism, "__init__", orig_init))

        def wrap(fn):
            def randomise(self, *args, **kwargs):
                stack = getattr(active, "ids", None)
                if stack is None:
                    stack = active.ids = set()
                key = id(self)
                if key in stack:  # a subclass calling super().randomise: counted once
                    return fn(self, *args, **kwargs)
                stack.add(key)
                try:
                    with ledger._lock:
                        if key not in ids:  # created before the block
                            ids[key] = len(ledger.created)
                            ledger.created.append(type(self).__name__)
                            alive.append(self)
                        ledger.calls.append(
                            MechanismCall(
                                ids[key],
                                type(self).__name__,
                                _float(self.epsilon),
                                _float(getattr(self, "delta", 0.0)) or 0.0,
                                _float(getattr(self, "sensitivity", None)),
                            )
                        )
                    return fn(self, *args, **kwargs)
                finally:
                    stack.discard(key)

            return randomise

        for cls in classes:
            if "randomise" in vars(cls):
                originals.append((cls, "randomise", vars(cls)["randomise"]))
                cls.randomise = wrap(vars(cls)["randomise"])
        for name, (module, func, argnames) in (hooks or {}).items():
            mod = importlib.import_module(module)
            fn = getattr(mod, func)

            def hooked(*args, _fn=fn, _name=name, _argnames=argnames, **kwargs):
                bound = dict(zip(_argnames, args))
                bound.update({k: v for k, v in kwargs.items() if k in _argnames})
                with ledger._lock:
                    ledger.hooks.setdefault(_name, []).append(bound)
                return _fn(*args, **kwargs)

            originals.append((mod, func, fn))
            setattr(mod, func, hooked)
        yield ledger
    finally:
        for owner, attr, value in reversed(originals):
            setattr(owner, attr, value)
        _PATCH_LOCK.release()
