"""diffprivlib 0.6.6 under audit: every mechanism, tool and model at its claimed ε ∈ {0.1, 1}.

Each component is run through its real code path by the adapters of ``estimators/dpl/`` (seeded per release,
explicit bounds / range / data_norm / classes, a private accountant per release) and audited with
``htdp_verify.privacy.audit`` under the neighbouring relation its calibration is valid for (diffprivlib
documents none; see ``estimators/dpl/``):

* mechanisms: the input is the value given to ``randomise``; neighbours are values at distance
  ``<= sensitivity`` inside the mechanism's domain (query-level pairs);
* tools (``mean``, ``var``, ``std``, ``sum``, ``count_nonzero``, ``quantile``, ``median``): replace-one;
  ``histogram``/``histogramdd``: add/remove-one;
* models: replace-one.

Neighbour search (dataset level): base datasets inside the declared box (all rows at the lower corner, at the
upper corner, spread over the box, half/half, and for classifiers a dataset where one class occurs once), and
from each: one row moved to every corner of the declared box (with every label for classifiers), one coordinate
of a row moved to a bound, a row replaced by a duplicate of the farthest row (replace-one); a row removed, a row
duplicated, a row added at a corner (add/remove).  The pairs are ranked on a search split and only the winner is
certified on fresh samples (``audit``; no α is spent on the search).  Attacks: thresholds and intervals for scalar
releases, outcome sets for discrete ones, coordinates, random projections and a learned (logistic) score for vector
releases; the full profile adds gradient boosting for models.

Each check returns one :class:`AuditResult` (component × ε) whose ``details["table"]`` holds its row of the
results table (component, claimed ε, δ, relation, ε_lb, verdict, samples, seconds); every check runs at
α = 0.05 / (number of checks), so the bounds of the whole suite hold simultaneously at 95 %; ``results_table``
assembles the whole table from a list of results.  A violation writes a minimal, stand-alone reproduction script
(plain diffprivlib calls, the pair, the event) to ``ctx.out_dir``.

Budgets (70 checks, 2 shared cores): quick ~3-5 minutes, full ~17 minutes at load ~2 and ~34 minutes at load ~7-10.

Layout (everything is re-exported here): :mod:`.components` (suite settings and the component table),
:mod:`.pairs` (dataset-level neighbours in a box), :mod:`.checks` (running one audit, the registered checks, the
results table), :mod:`.repro` (reproduction scripts), :mod:`.ledger` with :mod:`.recorder` (white-box budget
ledger), :mod:`.space_table` / :mod:`.space` / :mod:`.sizes` / :mod:`.search` / :mod:`.search_result` /
:mod:`.rootcause` (configuration search: the space, its sizes from a detectability target, the search, its result
table, the root cause of a violation).
Importing this package registers the checks.
"""

from __future__ import annotations

from . import ledger, search  # noqa: F401  (register the white-box budget checks and the configuration searches)
from .checks import audit_component, check_alpha, results_table
from .components import (  # noqa: F401 - constants re-exported for tests and repro scripts
    ALPHA,
    BOX,
    COMPONENTS,
    EPSILONS,
    GNB_CAUSE,
    KMEANS_CAUSE,
    LINREG_CAUSE,
    LINREG_SCALE,
    MODEL_N,
    N_JOBS,
    PAPER,
    SIZES,
    SLOW,
    TOOL_BOUNDS,
    TOOL_N,
    VARIANTS,
    Component,
    _model_bases,
)
from .pairs import box_pairs
from .repro import repro_script

__all__ = [
    "EPSILONS",
    "ALPHA",
    "VARIANTS",
    "check_alpha",
    "COMPONENTS",
    "SIZES",
    "Component",
    "audit_component",
    "box_pairs",
    "results_table",
    "repro_script",
]
