"""The release contract every mechanism call is held to (ARCHITECTURE.md, "Mechanisms"), checked where the auditor
calls the mechanism (:class:`~.adapters.Mechanism`).

``mechanism(data, size, rng)`` must return ``size`` fresh releases, drawn from ``rng``.  Three ways a plausible
mechanism breaks that contract without any error, each of which made the auditor wrong:

* **A reused output buffer.**  A mechanism that writes into one preallocated array and returns it on every call
  overwrites the releases the auditor still holds for one side with those of the next call.  A leak (true ε 2.5,
  claim 0.5) then came out "consistent" with ε_lb 0.  :func:`owned_releases` copies an output that something
  else still references (CPython reference counts, calibrated at import against a fresh array, so the test
  costs nothing for the usual freshly allocated output).
* **Randomness not drawn from ``rng``.**  A mechanism that seeds its own generator returns the same releases at
  every call: the certification then re-counts the very releases the events were chosen on, and a correct
  Laplace mechanism was flagged at 40 of 200 seeds (α = 0.05).  :class:`FreshnessCheck` compares the first
  releases of each call with those of recent calls made with a *different* generator state and raises when
  they are identical and their own variety makes a chance match impossible (below ``CHANCE``).
  Deterministic mechanisms (every release the same) and calls with the same generator state (the auditor's
  common random numbers, the streaming passes) never trigger it.
* **A mechanism that writes into its input.**  The pair's datasets are the caller's own arrays.  A mechanism that
  clips, centres or adds noise *in place* changed them for every later call: a local-noise mechanism (ε ≤ 1 per
  call) that wrote its noise back into its input drifted the pair apart and was certified at ε ≥ 2.5 (found by a
  red-team pass, 2026-11-29), and a clipping one silently changed the caller's D'.  :func:`private_input` gives
  every call its own copy of an array input (NumPy arrays, pandas objects, and tuples or lists of these, e.g.
  ``(X, y)``), so each call sees the intended data, and reports whether the call wrote into it; the result then
  warns.  Other input types are passed as they are.
* **Outputs the auditor cannot compare.**  Complex releases (numpy would drop the imaginary part), ragged
  outputs and releases with no values (shape ``(size, 0)``) raise a ``ValueError`` naming the mechanism and the
  shape or dtype instead of a numpy error from deep inside an attack.
"""

from __future__ import annotations

import hashlib
import math
import sys
from collections import deque
from typing import Any

import numpy as np

__all__ = [
    "as_release_array",
    "owned_releases",
    "generator_state_key",
    "private_input",
    "float64_loss",
    "FreshnessCheck",
    "CHANCE",
    "PREFIX",
]

CHANCE = 1e-12  # largest chance probability of identical prefixes that still raises
PREFIX = 64  # releases per call fingerprinted
RECENT = 8  # calls remembered


def _count(x: Any) -> int:
    return sys.getrefcount(x)


def _refs(out: np.ndarray) -> tuple[int, int | None]:
    """Reference counts of ``out`` and of its base (``None`` without one)."""
    base = out.base
    return _count(out), (None if base is None else _count(base))


def _calibrate() -> tuple[int, int]:
    """The counts :func:`owned_releases` sees for a fresh array and for a fresh view's base, through the same
    frames (a caller's local, the function's parameter, :func:`_refs`)."""
    out = np.empty(1)
    own = owned_releases(out, _measure=True)[0]
    view = np.empty((2, 1))[:, 0]
    base = owned_releases(view, _measure=True)[1]
    assert base is not None
    return int(own), int(base)


def owned_releases(out: np.ndarray, *, _measure: bool = False) -> Any:
    """``out`` itself when nothing but the caller references it (or its base), else a copy.

    Call it as ``out = owned_releases(out)`` with ``out`` a local variable and no other local naming the same
    array: the reference counts are compared with those measured at import through the same frames.

    Parameters
    ----------
    out : numpy.ndarray
        The mechanism's output.
    _measure : bool, default False
        Internal: return the reference counts instead (the calibration at import).

    Returns
    -------
    numpy.ndarray
        An array no one else can write to.
    """
    own, base = _refs(out)
    if _measure:
        return own, base
    if own > _OWN:
        return out.copy()
    if base is None:
        return out
    if not isinstance(out.base, np.ndarray) or base > _BASE:
        return out.copy()
    return out


_OWN, _BASE = _calibrate()


def as_release_array(res: Any, name: str, size: int) -> np.ndarray:
    """The mechanism's output ``res`` as an array of ``size`` releases, or a ``ValueError`` saying what is wrong.

    Parameters
    ----------
    res
        What the mechanism returned.
    name : str
        The mechanism's name (for the message).
    size : int
        Releases asked for.

    Returns
    -------
    numpy.ndarray
        ``np.asarray(res)``.
    """
    if isinstance(res, np.ma.MaskedArray):  # np.asarray would keep the values under the mask and drop the mask
        raise ValueError(
            f"mechanism {name!r} returned a masked array; the auditor would see the values under the mask. Return "
            "np.ma.filled(y, np.nan) (masked entries as NaN, an outcome like any other) or add the mask as columns"
        )
    try:
        out = np.asarray(res)
    except ValueError as e:  # ragged lists: numpy's "inhomogeneous shape" error
        raise ValueError(
            f"mechanism {name!r} must return an array of shape (size, ...) with size={size}; its output "
            f"({type(res).__name__}) has releases of different shapes ({e})"
        ) from None
    if out.ndim == 0 or out.shape[0] != size:
        raise ValueError(
            f"mechanism {name!r} must return an array of shape (size, ...) with size={size}, got shape {out.shape}"
        )
    if out.dtype.kind == "c":
        raise ValueError(
            f"mechanism {name!r} returned complex releases (dtype {out.dtype}); the auditor compares real values. "
            "Return np.stack([y.real, y.imag], axis=-1) to audit both parts"
        )
    if out.size == 0:
        raise ValueError(f"mechanism {name!r} returned releases with no values (shape {out.shape})")
    if out.dtype.kind == "V":
        raise ValueError(
            f"mechanism {name!r} returned a structured array (dtype {out.dtype}); return one numeric array of shape "
            "(size, k) with the fields as columns"
        )
    if out.dtype.kind == "O":
        _check_objects(out, name)
    return out


def _check_objects(out: np.ndarray, name: str) -> None:
    """One pass over an object array of releases: ``None``, objects that are neither numbers nor strings (dicts,
    sets: ``np.unique`` cannot order them), and text among numbers each raise an error naming them."""
    text = number = None
    for v in out.flat:
        if v is None:
            raise ValueError(
                f"mechanism {name!r} returned None among its releases; return NaN (or a value of its own) for a "
                "missing release"
            )
        if isinstance(v, (str, bytes)):
            text = v if text is None else text
        elif isinstance(v, (int, float, bool, np.generic)):
            number = v if number is None else number
        else:
            raise ValueError(
                f"mechanism {name!r} returned a {type(v).__name__} among its releases; return numbers (an array of "
                "shape (size, k) for several values) or strings"
            )
    if text is not None and number is not None:
        raise ValueError(
            f"mechanism {name!r} returned text ({text!r}) among numbers in an object array; the auditor cannot order "
            "or compare the two. Return a numeric code for the text (e.g. NaN for 'suppressed', an outcome like any "
            "other) or all releases as strings"
        )


def _copyable(x: Any) -> bool:
    return isinstance(x, np.ndarray) or (type(x).__module__.split(".")[0] == "pandas" and hasattr(x, "equals"))


def private_input(data: Any) -> tuple[Any, Any]:
    """A copy of ``data`` for one mechanism call, and a function telling whether the call wrote into it.

    NumPy arrays and pandas objects are copied, and so is every such element of a tuple or list (``(X, y)``);
    anything else is returned as it is (and the function always answers ``False``).  The check compares bytes
    (NumPy) or uses ``DataFrame.equals`` (pandas), so writing ``-0.0`` over ``0.0`` counts as a write.

    Parameters
    ----------
    data : object
        The dataset the auditor calls the mechanism on.

    Returns
    -------
    tuple
        ``(copy, wrote)``: the object to hand to the mechanism and a callable returning ``True`` when the
        mechanism changed it.
    """

    def one(x):
        return x.copy() if _copyable(x) else x

    def same(a, b) -> bool:
        if a is b:
            return True
        if isinstance(b, np.ndarray):
            if a.shape != b.shape or a.dtype != b.dtype:
                return False
            if b.dtype.kind == "O":
                return bool(np.array_equal(a, b))
            return a.tobytes() == b.tobytes()
        return bool(a.equals(b))

    if isinstance(data, (tuple, list)) and any(_copyable(x) for x in data):
        arg = type(data)(one(x) for x in data)
        return arg, lambda: not all(same(a, b) for a, b in zip(arg, data))
    if _copyable(data):
        arg = one(data)
        return arg, lambda: not same(arg, data)
    return data, lambda: False


def float64_loss(out: np.ndarray) -> str | None:
    """What comparing ``out`` as float64 loses, in words, or ``None``: long doubles, and 64-bit integers beyond
    ±2^53 (where float64 no longer holds every integer).  The attacks compare numbers as float64, so a leak below
    that resolution (the parity of an integer near 2^60) is invisible to them; the result says so.

    Parameters
    ----------
    out : numpy.ndarray
        Releases.

    Returns
    -------
    str or None
        The loss, or ``None``.
    """
    kind, size = out.dtype.kind, out.dtype.itemsize
    if kind == "f" and size > 8:
        return f"{out.dtype} releases are compared as float64 (about 16 significant digits)"
    if kind in "iu" and size >= 8 and out.size and bool(np.any((out > 2**53) | (out < -(2**53)))):
        return f"{out.dtype} releases beyond ±2^53 are compared as float64, which does not hold every integer there"
    return None


def generator_state_key(rng: np.random.Generator) -> int:
    """Key of everything a mechanism can draw from ``rng``: the bit generator's state and, since ``rng.spawn``
    leaves that state alone, how many children its seed sequence has spawned.

    Parameters
    ----------
    rng : numpy.random.Generator
        The generator.

    Returns
    -------
    int
        A hash that changes whenever a draw or a spawn does.
    """
    bg = rng.bit_generator
    seq = getattr(bg, "seed_seq", None)
    return hash((repr(bg.state), getattr(seq, "n_children_spawned", None)))


def _row_hashes(out: np.ndarray, k: int) -> np.ndarray:
    """64-bit hashes of the first ``k`` releases (bytes, dtype and shape included through the row bytes)."""
    rows = out[:k]
    if rows.dtype.kind == "O":
        blobs = [repr(r).encode() for r in rows]
    else:
        blobs = [r.tobytes() for r in np.ascontiguousarray(rows).reshape(k, -1)]
    return np.array(
        [int.from_bytes(hashlib.blake2b(b, digest_size=8).digest(), "little") for b in blobs], dtype=np.uint64
    )


class FreshnessCheck:
    """Raises when a mechanism returns the same releases for different generator states (see the module).

    One per :class:`~.adapters.Mechanism`; :meth:`check` is called after every call with the generator's state
    from before the call.
    """

    def __init__(self) -> None:
        self._recent: deque = deque(maxlen=RECENT)
        self.outside_rng = False  # a call returned varying releases without drawing from rng

    def __getstate__(self) -> dict:  # workers start afresh
        return {}

    def __setstate__(self, state: dict) -> None:
        self._recent = deque(maxlen=RECENT)

    def check(self, out: np.ndarray, before: int, after: int, name: str) -> None:
        """Compare the first releases of ``out`` with those of recent calls.

        A pair of calls is compared when their generator states before the call differ, or when this call left
        the generator where it was (no draw from ``rng``): the auditor re-uses a state on purpose (common random
        numbers, streaming passes), and then a mechanism drawing from ``rng`` rightly repeats itself.

        Parameters
        ----------
        out : numpy.ndarray
            The call's releases.
        before, after : int
            Keys of the generator's state before and after the call.
        name : str
            The mechanism's name (for the message).
        """
        k = min(PREFIX, out.shape[0])
        h = _row_hashes(out, k)
        unused = before == after
        if unused and np.unique(h).size > 1:  # random releases, but not from rng (np.random's global state, ...)
            self.outside_rng = True
        for s, dtype, shape, prev in self._recent:
            if (s == before and not unused) or dtype != out.dtype or shape != out.shape[1:]:
                continue
            m = min(k, prev.shape[0])
            if m < 2 or not np.array_equal(h[:m], prev[:m]):
                continue
            pooled = np.concatenate([h[:m], prev[:m]])
            vals, counts = np.unique(pooled, return_counts=True)
            freq = dict(zip(vals.tolist(), (counts / pooled.size).tolist()))
            log_chance = float(sum(math.log(freq[v]) for v in h[:m].tolist()))
            if log_chance < math.log(CHANCE):
                how = "without drawing from rng" if unused else "for two different states of rng"
                raise ValueError(
                    f"mechanism {name!r} returned the same first {m} releases {how} (chance probability "
                    f"~{math.exp(log_chance):.1g} for fresh draws): it does not take its randomness from the rng "
                    "argument (e.g. it seeds its own generator). The auditor's bounds need every call to return "
                    "fresh releases drawn from rng"
                )
        self._recent.append((before, out.dtype, out.shape[1:], h))
