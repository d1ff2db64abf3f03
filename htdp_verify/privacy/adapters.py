"""Mechanism adapters: turn estimators, release functions and diffprivlib objects into auditor mechanisms.

The auditor's input contract (ARCHITECTURE.md, "Mechanisms") is a callable

    mechanism(data, size, rng) -> ndarray of shape (size, ...)

returning ``size`` independent releases on the same ``data``, with all randomness drawn from the
``numpy.random.Generator`` ``rng``.  Every adapter here returns a :class:`Mechanism`, a thin callable that
also carries a ``name`` and, when known, the declared ``guarantee`` (a :class:`PrivacyGuarantee`), which
``audit`` uses as the claim when none is given.

Only :func:`from_estimator` and plain vectorised callables are fast; the other adapters loop over Python
calls because the code under test draws one release per call (that is the one place where loops belong).
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from .._validate import check_int, check_rng
from .dpl_adapter import DPLAdapter
from .release_contract import (
    FreshnessCheck,
    as_release_array,
    float64_loss,
    generator_state_key,
    owned_releases,
    private_input,
)

__all__ = [
    "Mechanism",
    "as_mechanism",
    "from_estimator",
    "from_scalar_function",
    "from_seeded_callable",
    "from_diffprivlib",
]

_SEED_HIGH = 2**31 - 1  # integer seeds handed to user code by from_seeded_callable lie in [0, 2**31 - 1)


class Mechanism:
    """A batched mechanism ``(data, size, rng) -> ndarray (size, ...)`` with a name and optional guarantee.

    Parameters
    ----------
    fn
        the batched release function ``fn(data, size, rng)``.
    name
        a short label used in reports.
    guarantee
        the declared privacy guarantee (``PrivacyGuarantee``) or ``None``.
    vectorised
        whether ``fn`` draws all releases in one call (informational; shown in reports).
    reproducible
        whether the releases are a function of ``rng`` alone (default ``True``). ``False`` for code that
        draws from its own unseedable secure generator (OpenDP, python-dp): ``rng`` is then not the source of the
        releases and a run cannot be replayed from its seed.

    Attributes
    ----------
    float64_loss : str or None
        What comparing the releases as float64 loses (:func:`~.release_contract.float64_loss`), once seen; an
        audit's result warns.
    wrote_input : bool
        Whether a call wrote into its input.  Every call gets its own copy of an array input
        (:func:`~.release_contract.private_input`), so the caller's data and the audited pair stay as given; an
        audit's result warns when this is set.
    """

    def __init__(
        self,
        fn: Callable,
        *,
        name: str = "mechanism",
        guarantee: Any = None,
        vectorised: bool = True,
        reproducible: bool = True,
    ):
        if not callable(fn):
            raise ValueError(f"fn must be callable, got {type(fn).__name__}")
        self._fn = fn
        self.name = str(name)
        self.guarantee = guarantee
        self.vectorised = bool(vectorised)
        self.reproducible = bool(reproducible)
        self._fresh = FreshnessCheck()
        self.wrote_input = False  # set when a call wrote into its (private copy of the) input
        self.float64_loss: str | None = None  # set when releases lose precision as float64 (release_contract)

    def __call__(self, data, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` releases on ``data`` drawn from ``rng``, held to the release contract
        (:mod:`.release_contract`: a clear error for outputs the auditor cannot compare or releases that do not
        come from ``rng``; a copy of an output buffer the mechanism keeps)."""
        check_rng(rng)
        before = generator_state_key(rng) if self.reproducible else None
        out = self.unchecked(data, size, rng)
        if before is not None:
            self._fresh.check(out, before, generator_state_key(rng), self.name)
        return out

    def unchecked(self, data, size: int, rng: np.random.Generator) -> np.ndarray:
        """The releases without the freshness check of a call (shape, dtype and buffer checks still apply): for
        checks that measure the dependence between calls themselves
        (:func:`~htdp_verify.privacy.independence.check_independent_releases`).

        Parameters
        ----------
        data : array_like
            The input.
        size : int
            Releases.
        rng : numpy.random.Generator
            The generator.

        Returns
        -------
        numpy.ndarray
            Shape ``(size, ...)``.
        """
        size = check_int("size", size, minimum=1)
        check_rng(rng)
        arg, wrote = private_input(data)  # each call on its own copy: a write into it cannot move the pair
        res = self._fn(arg, size, rng)
        if wrote():
            self.wrote_input = True
        del arg
        out = as_release_array(res, self.name, size)
        if self.float64_loss is None:
            self.float64_loss = float64_loss(out)
        del res  # owned_releases counts the references to out: none but this local may remain
        return owned_releases(out)

    @property
    def draws_outside_rng(self) -> bool:
        """Whether a call returned varying releases without drawing from its ``rng`` (e.g. from ``np.random``'s
        global state): the releases are fresh, but the audit cannot be replayed from its seed."""
        return bool(self._fresh.outside_rng)

    def __repr__(self) -> str:
        g = f", guarantee={self.guarantee}" if self.guarantee is not None else ""
        r = "" if self.reproducible else ", reproducible=False"
        return f"Mechanism({self.name!r}{g}, vectorised={self.vectorised}{r})"


def as_mechanism(obj: Any) -> Mechanism:
    """Turn what an audit accepts into a :class:`Mechanism`.

    Parameters
    ----------
    obj : Mechanism, estimator or callable
        A :class:`Mechanism` (returned as is), an estimator (object with ``sample``), or a plain batched callable
        ``f(data, size, rng)``.

    Returns
    -------
    Mechanism
        The mechanism, with the estimator's declared guarantee when there is one.
    """
    if isinstance(obj, Mechanism):
        return obj
    if hasattr(obj, "sample") and callable(obj.sample):
        return from_estimator(obj)
    if callable(obj):  # a declared guarantee / name on the callable (e.g. diffprivlib adapters) is kept
        name = getattr(obj, "name", None) or getattr(obj, "__name__", type(obj).__name__)
        guarantee = getattr(obj, "privacy", None) or getattr(obj, "guarantee", None)
        return Mechanism(obj, name=str(name), guarantee=guarantee)
    raise ValueError(
        "mechanism must be a Mechanism, an estimator with .sample(data, size, rng=...), or a callable "
        f"(data, size, rng) -> ndarray; got {type(obj).__name__}"
    )


def from_estimator(est: Any) -> Mechanism:
    """Adapt an estimator (``est.sample(data, size, *, rng)``, ARCHITECTURE "Estimators") to a mechanism.

    The estimator's declared ``privacy`` guarantee becomes the mechanism's ``guarantee``.

    Parameters
    ----------
    est : object
        An estimator with ``sample(data, size, *, rng)`` and, optionally, ``privacy``.

    Returns
    -------
    Mechanism
        The batched mechanism ``(data, size, rng) -> (size, ...)``.
    """
    if not (hasattr(est, "sample") and callable(est.sample)):
        raise ValueError(f"est must have a callable .sample(data, size, *, rng), got {type(est).__name__}")

    def fn(data, size, rng):
        return est.sample(data, size, rng=rng)

    return Mechanism(fn, name=repr(est), guarantee=getattr(est, "privacy", None), vectorised=True)


def _stack(releases, size: int, name: str) -> np.ndarray:
    try:
        return np.stack([np.asarray(r) for r in releases])
    except ValueError as exc:  # ragged releases
        raise ValueError(f"{name} returned releases of differing shapes; every release must have one shape") from exc


def from_scalar_function(f: Callable, *, name: str | None = None, guarantee: Any = None) -> Mechanism:
    """Adapt a one-release function ``f(data, rng) -> scalar or array`` by looping ``size`` times.

    ``f`` must draw all its randomness from the ``rng`` it is given (``numpy.random.Generator``).

    Parameters
    ----------
    f : callable
        ``f(data, rng) -> scalar or array``, one release drawing all its randomness from ``rng``.
    name : str, optional
        Name of the mechanism in results.
    guarantee : PrivacyGuarantee, optional
        The claimed guarantee the audit tests by default.

    Returns
    -------
    Mechanism
        The auditor mechanism ``(data, size, rng) -> (size, ...)``.
    """
    if not callable(f):
        raise ValueError(f"f must be callable, got {type(f).__name__}")
    label = name or getattr(f, "__name__", "scalar_function")

    def fn(data, size, rng):
        return _stack((f(data, rng) for _ in range(size)), size, label)

    return Mechanism(fn, name=label, guarantee=guarantee, vectorised=False)


def from_seeded_callable(f: Callable, *, name: str | None = None, guarantee: Any = None) -> Mechanism:
    """Adapt ``f(data, seed: int) -> release`` (code that wants an integer seed rather than a Generator).

    One integer seed per release is drawn from ``rng`` (in ``[0, 2**31 - 1)``), so a run is reproducible
    from the auditor's generator and releases are independent as far as ``f``'s seeding allows.

    Parameters
    ----------
    f : callable
        ``f(data, seed) -> release`` with an integer seed.
    name : str, optional
        Name of the mechanism in results.
    guarantee : PrivacyGuarantee, optional
        The claimed guarantee the audit tests by default.

    Returns
    -------
    Mechanism
        The auditor mechanism ``(data, size, rng) -> (size, ...)``.
    """
    if not callable(f):
        raise ValueError(f"f must be callable, got {type(f).__name__}")
    label = name or getattr(f, "__name__", "seeded_callable")

    def fn(data, size, rng):
        seeds = rng.integers(0, _SEED_HIGH, size=size)
        return _stack((f(data, int(s)) for s in seeds), size, label)

    return Mechanism(fn, name=label, guarantee=guarantee, vectorised=False)


def _is_dpl_mechanism(obj) -> bool:
    try:
        from diffprivlib.mechanisms.base import DPMechanism
    except ImportError:  # pragma: no cover - diffprivlib is a declared dependency
        return False
    return isinstance(obj, DPMechanism)


def _is_dpl_mechanism_class(obj) -> bool:
    try:
        from diffprivlib.mechanisms.base import DPMechanism
    except ImportError:  # pragma: no cover
        return False
    return isinstance(obj, type) and issubclass(obj, DPMechanism)


def _dpl_guarantee(mech, neighbours: str):
    from .guarantee import PrivacyGuarantee

    eps = getattr(mech, "epsilon", None)
    delta = float(getattr(mech, "delta", 0.0) or 0.0)
    if eps is None or not np.isfinite(eps) or eps <= 0:
        return None
    return PrivacyGuarantee(float(eps), delta, neighbours)


class _DiffprivlibObject(DPLAdapter):
    """A user's diffprivlib object (instance, class, factory or tool) on the shared adapter core.

    Per chunk of releases the object is bound to the core's ``RandomState`` once (a shallow copy of an instance
    with its ``_rng`` replaced, a class or factory instantiated with ``random_state``); the core re-seeds that
    ``RandomState`` with the release's own seed before each release. Warnings pass through unchanged (not strict)
    and releases keep diffprivlib's dtype.
    """

    strict = False
    output_dtype = None

    def __init__(self, kind: str, obj, kwargs: dict, name: str):
        super().__init__(1)
        self.kind, self.obj, self.kwargs, self.name = kind, obj, dict(kwargs), name
        self.min_chunk = 1

    def _chunk_state(self, data, rs):
        if self.kind == "instance":
            m = copy.copy(self.obj)
            m._rng = rs  # diffprivlib draws every random number of randomise() from self._rng
            m.random_state = rs
            return m
        if self.kind == "class":
            return self.obj(**self.kwargs, random_state=rs)
        if self.kind == "factory":
            return self.obj(random_state=rs)
        return None

    def _release(self, data, rs, state):
        if self.kind == "tool":
            return self.obj(data, random_state=rs)
        return state.randomise(data)


def from_diffprivlib(
    obj: Any, /, *, kind: str = "auto", neighbours: str = "replace", name: str | None = None, **kwargs: Any
) -> Mechanism:
    """Adapt a diffprivlib mechanism or tool; releases go through diffprivlib's own code path.

    ``obj`` may be

    * a mechanism **instance** (``Laplace(epsilon=1, sensitivity=1)``): releases run on a shallow copy whose
      random state is replaced; ``data`` is the value passed to ``randomise``;
    * a mechanism **class** (``Laplace``) plus its constructor ``kwargs``;
    * a **factory** ``f(random_state) -> mechanism`` (``kind="factory"``);
    * a **tool** ``f(data, random_state=...) -> release`` such as ``lambda x, random_state:
      diffprivlib.tools.mean(x, epsilon=1, bounds=(0, 1), random_state=random_state)`` (``kind="tool"``).

    ``kind="auto"`` decides from the object (a callable whose signature has a parameter besides
    ``random_state`` is a tool).  For mechanisms the declared ε, δ become the ``guarantee`` under
    ``neighbours``.  Seeding (:mod:`htdp_verify.privacy.dpl_adapter`, shared with the project's named diffprivlib
    adapters): one integer seed per release is drawn from ``rng`` and release ``i`` runs with ``random_state`` equal
    to ``RandomState(seed_i)``, so releases are independent and reproducible, and ``mechanism.adapter.release(data,
    seed)`` replays one of them. diffprivlib's secure ``SystemRandom`` path (used when ``random_state`` is
    ``None``) is never used, because it cannot be seeded.

    Parameters
    ----------
    obj : object
        A diffprivlib mechanism instance or class, a factory, or a tool (see above).
    kind : str, default "auto"
        ``"auto"``, ``"mechanism"``, ``"factory"`` or ``"tool"``.
    neighbours : str, default "replace"
        The neighbouring relation of the declared guarantee.
    name : str, optional
        Name of the mechanism in results.
    **kwargs
        Constructor arguments when ``obj`` is a mechanism class.

    Returns
    -------
    Mechanism
        The auditor mechanism ``(data, size, rng) -> (size, ...)``.
    """
    if kind not in ("auto", "instance", "class", "factory", "tool"):
        raise ValueError(f"kind must be one of 'auto', 'instance', 'class', 'factory', 'tool'; got {kind!r}")
    if kind == "auto":
        if _is_dpl_mechanism(obj):
            kind = "instance"
        elif _is_dpl_mechanism_class(obj):
            kind = "class"
        elif callable(obj):
            try:
                params = [
                    p
                    for p in inspect.signature(obj).parameters.values()
                    if p.name != "random_state" and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                ]
            except (TypeError, ValueError):
                params = []
            kind = "tool" if params else "factory"
        else:
            raise ValueError(
                f"obj must be a diffprivlib mechanism, mechanism class, factory or tool; got {type(obj).__name__}"
            )
    if kind != "class" and kwargs:
        raise ValueError(f"constructor kwargs are only accepted with a mechanism class, got {sorted(kwargs)}")

    guarantee = None
    if kind == "instance":
        if not _is_dpl_mechanism(obj):
            raise ValueError(
                f"obj must be a diffprivlib DPMechanism instance for kind='instance', got {type(obj).__name__}"
            )
        proto = obj
    elif kind == "class":
        if not _is_dpl_mechanism_class(obj):
            raise ValueError(f"obj must be a diffprivlib DPMechanism subclass for kind='class', got {obj!r}")
        proto = obj(**kwargs, random_state=0)
    elif kind == "factory":
        proto = obj(random_state=0)
        if not _is_dpl_mechanism(proto):
            raise ValueError("a factory must return a diffprivlib DPMechanism when called with random_state")
    if kind == "tool":
        label = name or getattr(obj, "__name__", "diffprivlib_tool")
    else:
        label = name or type(proto).__name__
        guarantee = _dpl_guarantee(proto, neighbours)
    adapter = _DiffprivlibObject(kind, obj, kwargs, label)
    adapter.privacy = guarantee
    mech = Mechanism(adapter, name=f"diffprivlib.{label}", guarantee=guarantee, vectorised=False)
    mech.adapter = adapter
    return mech


def draw(mechanism: Any, data: Any, size: int, rng: np.random.Generator, *, chunk_size: int = 1_000_000) -> np.ndarray:
    """``size`` releases on ``data`` in chunks of at most ``chunk_size`` (bounded memory per call).

    Parameters
    ----------
    mechanism : Mechanism or callable
        The mechanism ``(data, size, rng) -> (size, ...)``.
    data : array_like
        The input.
    size : int
        Releases.
    rng : numpy.random.Generator
        The generator every release is drawn from.
    chunk_size : int, default 1000000
        Most releases per call.

    Returns
    -------
    numpy.ndarray
        Shape ``(size, ...)``.
    """
    size = check_int("size", size, minimum=1)
    chunk_size = check_int("chunk_size", chunk_size, minimum=1)
    parts, left = [], size
    while left > 0:
        m = min(left, chunk_size)
        y = np.asarray(mechanism(data, m, rng))
        if y.ndim == 0 or y.shape[0] != m:
            raise ValueError(f"mechanism must return shape (size, ...) with size={m}, got {y.shape}")
        parts.append(y)
        left -= m
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def count_events(
    mechanism: Any, data: Any, size: int, events: Any, rng: np.random.Generator, *, chunk_size: int = 1_000_000
) -> np.ndarray:
    """How many of ``size`` fresh releases on ``data`` fall in each event (releases drawn and discarded in chunks).

    Parameters
    ----------
    mechanism : Mechanism or callable
        The mechanism ``(data, size, rng) -> (size, ...)``.
    data : array_like
        The input.
    size : int
        Releases.
    events : sequence
        The fixed events.
    rng : numpy.random.Generator
        The generator every release is drawn from.
    chunk_size : int, default 1000000
        Most releases per call.

    Returns
    -------
    numpy.ndarray
        One count per event.
    """
    size = check_int("size", size, minimum=1)
    counts = np.zeros(len(events), dtype=np.int64)
    left = size
    while left > 0:
        m = min(left, chunk_size)
        y = np.asarray(mechanism(data, m, rng))
        if y.ndim == 0 or y.shape[0] != m:
            raise ValueError(f"mechanism must return shape (size, ...) with size={m}, got {y.shape}")
        for i, ev in enumerate(events):
            counts[i] += int(np.count_nonzero(ev.indicator(y)))
        left -= m
    return counts


__all__ += ["draw", "count_events"]
