"""``CheckResult``: one verdict with its statistic, interval, α, samples, seconds, seed and provenance.

Verdicts are statistical statements at a stated α, never bare booleans:

* ``"consistent"`` – the data do not contradict the claim at level α (say what the run could have detected);
* ``"violated"`` – the claim is rejected at level α;
* ``"inconclusive"`` – the run could not decide (too few samples; ``details`` says how many would be needed);
* ``"info"`` – a description that tests no claim (a comparison table, a measured ratio): never "consistent";
* ``"error"`` – the check could not run (``details['error']`` holds the message).

Canaries and controls (checks built to fail, or to pass, on purpose) carry ``expected``, the verdict they are
expected to produce; :attr:`CheckResult.outcome` then says whether the run met that expectation, and
:func:`tally` counts outcomes so that a canary's expected violation is not counted as a finding.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

from .claims import Provenance, claim_from_dict
from .results_schema import check_result_dict

__all__ = [
    "CheckResult",
    "VERDICTS",
    "CLAIM_VERDICTS",
    "OUTCOMES",
    "FORMAT_VERSION",
    "tally",
    "pair_text",
    "results_document",
    "results_to_json",
    "results_from_json",
]

#: verdicts a claim can get (and the values ``expected`` may take)
CLAIM_VERDICTS = ("consistent", "violated", "inconclusive")
VERDICTS = CLAIM_VERDICTS + ("info", "error")
#: what :attr:`CheckResult.outcome` returns: a claim's verdict when nothing was expected of it, ``"as expected"`` /
#: ``"unexpected"`` for canaries and controls, ``"info"`` for descriptions and ``"error"`` for checks that did not run
OUTCOMES = CLAIM_VERDICTS + ("as expected", "unexpected", "info", "error")


#: version of the results format written by :func:`results_document` / :meth:`CheckResult.to_dict`.
#: 1 (unversioned files): non-finite floats written as the strings "inf", "-inf", "nan".
#: 2: every number is a JSON number; a non-finite float is written as ``null`` and its value is recorded in the
#: result's ``"nonfinite"`` object, keyed by the JSON Pointer (RFC 6901) of the value inside the result, e.g.
#: ``{"interval": [1.2, null], "nonfinite": {"/interval/1": "inf"}}``.  A reader that ignores ``"nonfinite"`` sees
#: ``null`` ("no finite value"); :meth:`CheckResult.from_dict` restores the float.  Schema:
#: ``htdp_verify/schemas/results.schema.json``.
FORMAT_VERSION = 2
FORMAT_NAME = "htdp-verify-results"
_NONFINITE_TEXT = {math.inf: "inf", -math.inf: "-inf"}


def _pointer_token(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _jsonable(x, path: str = "", nonfinite: dict | None = None):
    """Make numpy scalars/arrays JSON-safe; a non-finite float becomes ``None`` and, when ``nonfinite`` is given,
    ``nonfinite[path] = "inf" | "-inf" | "nan"`` (``path``: the JSON Pointer of the value)."""
    import numpy as np

    if isinstance(x, dict):
        return {str(k): _jsonable(v, f"{path}/{_pointer_token(str(k))}", nonfinite) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v, f"{path}/{i}", nonfinite) for i, v in enumerate(x)]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist(), path, nonfinite)
    if isinstance(x, np.generic):
        return _jsonable(x.item(), path, nonfinite)
    if isinstance(x, float) and not math.isfinite(x):
        if nonfinite is not None:
            nonfinite[path] = "nan" if math.isnan(x) else _NONFINITE_TEXT[x]
        return None
    return x


def _restore_nonfinite(d: dict, nonfinite: dict) -> None:
    """Put the floats recorded in a result's ``"nonfinite"`` object back at their JSON Pointers (in place)."""
    for pointer, text in nonfinite.items():
        if text not in ("inf", "-inf", "nan") or not pointer.startswith("/"):
            raise ValueError(f"nonfinite: expected '/pointer': 'inf' | '-inf' | 'nan', got {pointer!r}: {text!r}")
        *parents, last = [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]
        node = d
        try:
            for t in parents:
                node = node[int(t)] if isinstance(node, list) else node[t]
            if isinstance(node, list):
                node[int(last)] = float(text)
            else:
                node[last] = float(text)
        except (KeyError, IndexError, ValueError, TypeError):
            raise ValueError(f"nonfinite: pointer {pointer!r} does not name a value of the result") from None


def _unjson_float(x):
    """A float field read back: ``None`` (format 2 without a ``nonfinite`` entry) is NaN; "inf"/"-inf"/"nan" strings
    of format 1 files are read as floats."""
    if x is None:
        return float("nan")
    if isinstance(x, str) and x in ("inf", "-inf", "nan"):
        return float(x)
    return x


@dataclass
class CheckResult:
    """One check's verdict.

    Parameters
    ----------
    name
        registered name of the check (``"hu2022.privacy.smoothed_mean"``).
    verdict
        one of :data:`VERDICTS`.
    statistic
        the name of the estimated quantity (``"epsilon_lb"``, ``"exponent"``, ``"exceedance_rate"``).
    estimate
        its value (for a privacy audit: the certified ε lower bound).
    interval
        confidence interval ``(lo, hi)`` at level ``1 - alpha`` (one side may be ±inf).
    alpha
        the error probability spent on this verdict.
    claim
        the claim under test (a claims dataclass) or ``None``.
    n_samples
        samples / replications used.
    seconds
        wall-clock time of the check.
    seed
        the integer seed that reproduces the check.
    provenance
        paper, theorem, equation.
    summary
        one sentence a user reads first.
    details
        anything else (JSON-serialisable).
    figures
        paths of figures produced (relative to the report folder).
    expected
        ``None`` for an ordinary check; for a canary or control, the verdict it is built to produce
        (one of :data:`CLAIM_VERDICTS`, e.g. ``"violated"`` for a deliberately under-noised mechanism).
    """

    name: str
    verdict: str
    statistic: str = ""
    estimate: float = float("nan")
    interval: tuple = (float("-inf"), float("inf"))
    alpha: float = 0.05
    claim: Any = None
    n_samples: int = 0
    seconds: float = 0.0
    seed: int | None = None
    provenance: Provenance = field(default_factory=Provenance)
    summary: str = ""
    details: dict = field(default_factory=dict)
    figures: list = field(default_factory=list)
    expected: str | None = None

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.expected is not None and self.expected not in CLAIM_VERDICTS:
            raise ValueError(f"expected must be None or one of {CLAIM_VERDICTS}, got {self.expected!r}")
        if isinstance(self.provenance, dict):
            self.provenance = Provenance(**self.provenance)
        if self.provenance is None and self.claim is not None:
            self.provenance = self.claim.provenance
        self.interval = tuple(float(v) for v in self.interval)

    @property
    def as_expected(self) -> bool | None:
        """``None`` when nothing is expected of this check; otherwise whether the verdict equals ``expected``
        (a check that could not run never meets an expectation)."""
        return None if self.expected is None else self.verdict == self.expected

    @property
    def outcome(self) -> str:
        """One of :data:`OUTCOMES`: ``"error"`` for a check that did not run; with no expectation, the verdict
        (``"info"`` included); for a canary or control, ``"as expected"`` or ``"unexpected"``."""
        if self.verdict == "error" or self.expected is None:
            return self.verdict
        return "as expected" if self.as_expected else "unexpected"

    @property
    def unexpected_violation(self) -> bool:
        """A ``violated`` verdict that was not expected (a finding, or a control that failed)."""
        return self.verdict == "violated" and self.expected != "violated"

    @property
    def ok(self) -> bool:
        """False for an error, an unexpected violation, or a canary/control that missed its expected verdict."""
        if self.verdict == "error" or self.unexpected_violation:
            return False
        return self.as_expected is not False

    def to_dict(self) -> dict:
        """A JSON-ready dict (format :data:`FORMAT_VERSION`): JSON numbers or ``null``; non-finite floats are
        ``null`` with their value under ``"nonfinite"`` (JSON Pointer -> "inf" / "-inf" / "nan").

        Returns
        -------
        dict
            The result as a dict.
        """
        d = asdict(self)
        d["claim"] = None if self.claim is None else asdict(self.claim)
        nonfinite: dict = {}
        out = _jsonable(d, "", nonfinite)
        if nonfinite:
            out["nonfinite"] = nonfinite
        return out

    @classmethod
    def from_dict(cls, d: dict) -> CheckResult:
        """Read a dict written by :meth:`to_dict` (format 2) or by earlier versions ("inf"/"nan" strings).

        Parameters
        ----------
        d : dict
            The dict.

        Returns
        -------
        CheckResult
            The result, an instance of the class this is called on.
        """
        check_result_dict(d)  # a results file may come from someone else (results_schema.py)
        d = copy.deepcopy(d)
        nonfinite = d.pop("nonfinite", None)
        if nonfinite:
            _restore_nonfinite(d, nonfinite)
        claim = d.pop("claim", None)
        d["claim"] = None if claim is None else claim_from_dict(claim)
        d["provenance"] = Provenance(**(d.get("provenance") or {}))
        d["estimate"] = float(_unjson_float(d.get("estimate", float("nan"))))
        d["interval"] = tuple(float(_unjson_float(v)) for v in d.get("interval", ("-inf", "inf")))
        return cls(**d)

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.to_dict(), **kw)

    @classmethod
    def from_json(cls, s: str) -> CheckResult:
        return cls.from_dict(json.loads(s))

    def __repr__(self) -> str:
        # the dataclass repr would print every detail (whole datasets of a privacy audit's pair)
        return f"{type(self).__name__}(name={self.name!r}, verdict={self.verdict!r}, estimate={self.estimate!r})"

    def short_summary(self) -> str:
        """:attr:`summary` with a neighbouring pair's printed datasets (``details["pair"]["text"]``) replaced by
        :func:`pair_text` (label, sizes and the differing record).

        Returns
        -------
        str
            The summary.
        """
        pair = self.details.get("pair") if isinstance(self.details, dict) else None
        if isinstance(pair, dict) and pair.get("text") and pair["text"] in self.summary:
            return self.summary.replace(pair["text"], pair_text(pair))
        return self.summary

    def line(self) -> str:
        """One line: ``[VERDICT (expected ...)] name: statistic=estimate summary`` (datasets never printed).

        Returns
        -------
        str
            The line.
        """
        est = (
            ""
            if (isinstance(self.estimate, float) and math.isnan(self.estimate))
            else f" {self.statistic}={self.estimate:.4g}"
        )
        exp = "" if self.expected is None else f" (expected {self.expected}: {self.outcome})"
        return f"[{self.verdict.upper()}{exp}] {self.name}:{est} {self.short_summary()}".rstrip()

    def __str__(self) -> str:
        """:meth:`line`, then (when the details hold them) the pair as text (never the datasets themselves), the
        detectability statement and the GDP μ lower bound."""
        lines = [self.line()]
        d = self.details if isinstance(self.details, dict) else {}
        pair = d.get("pair")
        if isinstance(pair, dict):
            lines.append(f"  pair: {pair_text(pair)}")
        det = d.get("detectability")
        if isinstance(det, dict) and det.get("statement"):
            lines.append(f"  detectability: {det['statement']}")
        mu = d.get("gdp_mu_lb")
        if isinstance(mu, (int, float)) and math.isfinite(mu) and mu > 0:
            lines.append(f"  GDP: mu >= {mu:.4g} at {1 - self.alpha:.4g} confidence (valid for mu-GDP mechanisms)")
        return "\n".join(lines)


def _short(x) -> str:
    if isinstance(x, float):
        return f"{x:.6g}"
    if isinstance(x, list):
        return "(" + ", ".join(_short(v) for v in x[:6]) + (", …" if len(x) > 6 else "") + ")"
    return repr(x) if isinstance(x, str) else str(x)


def pair_text(pair: dict) -> str:
    """A neighbouring pair in words without printing the datasets: its label and relation, the datasets' sizes and
    the record(s) in which they differ.

    Parameters
    ----------
    pair : dict
        The dict of ``Pair.to_dict()``, with ``d`` and ``d_prime``.

    Returns
    -------
    str
        The description.
    """
    label = pair.get("label") or "pair"
    rel = pair.get("relation")
    head = f"{label}" + (f" [{rel}]" if rel else "")
    d, dp = pair.get("d"), pair.get("d_prime")
    if isinstance(d, dict) or isinstance(dp, dict):  # stored as a shape summary (large datasets)
        sd = d.get("shape") if isinstance(d, dict) else None
        sdp = dp.get("shape") if isinstance(dp, dict) else None
        n, n2 = (sd[0] if sd else "?"), (sdp[0] if sdp else "?")
        size = f"{n} records each" if n == n2 else f"{n} vs {n2} records"
        return f"{head}; {size} (too large to store, so the differing record is not kept)"
    if not isinstance(d, list) or not isinstance(dp, list):  # scalar inputs (a query value)
        return f"{head}; input {_short(d)} vs {_short(dp)}" if d is not None else head
    if len(d) == len(dp):
        diff = [i for i, (a, b) in enumerate(zip(d, dp)) if a != b]
        if not diff:
            return f"{head}; {len(d)} records each, identical"
        shown = ", ".join(f"record {i}: {_short(d[i])} vs {_short(dp[i])}" for i in diff[:3])
        more = f" (and {len(diff) - 3} more)" if len(diff) > 3 else ""
        return f"{head}; {len(d)} records each, {len(diff)} differing: {shown}{more}"
    small, big, which = (d, dp, "D'") if len(d) < len(dp) else (dp, d, "D")
    extra = [r for r in big if r not in small] or big[-1:]
    return f"{head}; {len(d)} vs {len(dp)} records, {which} has the extra record {_short(extra[0]) if extra else '?'}"


def tally(results: Any) -> dict[str, int]:
    """Counts of :attr:`CheckResult.outcome` over ``results``, every key of :data:`OUTCOMES` present (0 if none).

    Canaries and controls count under ``"as expected"`` / ``"unexpected"``, never under their verdict, so a
    canary's intended violation is not a finding and a description (``"info"``) is never counted as consistent.

    Parameters
    ----------
    results : list of CheckResult
        The results.

    Returns
    -------
    dict
        ``{outcome: count}``.
    """
    counts = dict.fromkeys(OUTCOMES, 0)
    for r in results:
        counts[r.outcome] += 1
    return counts


def results_document(results: Any, meta: dict | None = None) -> dict:
    """The content of ``results.json``: ``{"format", "format_version", "meta", "tally", "results"}``.

    Parameters
    ----------
    results : list of CheckResult
        The results.
    meta : dict, optional
        The run's settings (profile, seed, versions, ...).

    Returns
    -------
    dict
        The JSON-ready document.
    """
    results = list(results)
    return {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "meta": _jsonable(dict(meta or {})),
        "tally": tally(results),
        "results": [r.to_dict() for r in results],
    }


def dumps(obj, **kw) -> str:
    """``json.dumps`` that refuses NaN / Infinity (they are not JSON: encode with :meth:`CheckResult.to_dict`) and
    writes any other non-JSON object (a path, a set) as its ``str`` rather than losing the run's results."""
    return json.dumps(obj, allow_nan=False, ensure_ascii=False, default=str, **kw)


def results_to_json(results: Any, **kw: Any) -> str:
    """A whole results document (see :func:`results_document`) as JSON text.

    Parameters
    ----------
    results : list of CheckResult
        The results.
    **kw
        ``meta`` goes to :func:`results_document`; the rest to ``json.dumps`` (e.g. ``indent``).

    Returns
    -------
    str
        The JSON text.
    """
    meta = kw.pop("meta", None)
    return dumps(results_document(results, meta=meta), **kw)


def results_from_json(s: str) -> list[CheckResult]:
    """The results of a ``results.json`` text: a document of any format version, or a bare list of results.

    Parameters
    ----------
    s : str
        The JSON text.

    Returns
    -------
    list of CheckResult
        The results.
    """
    try:
        doc = json.loads(s)
    except RecursionError:
        raise ValueError("results JSON nests too deeply to be a results file this toolkit writes") from None
    if isinstance(doc, dict):
        version = doc.get("format_version", 1)
        if not isinstance(version, int) or version > FORMAT_VERSION:
            raise ValueError(f"format_version must be an integer <= {FORMAT_VERSION}, got {version!r}")
        doc = doc.get("results", [])
    return [CheckResult.from_dict(d) for d in doc]
