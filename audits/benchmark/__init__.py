"""Ground-truth benchmark of the auditor: the mechanisms DP-Sniper and StatDP are evaluated on, correct and buggy,
with their true ε, audited by the public ``htdp_verify.privacy.audit`` and compared with both tools' published
numbers and with an exact-law oracle.

Modules (imports flow down the list, no cycles):

* :mod:`.mechanism` — the record :class:`BenchMechanism` and the extreme input pairs;
* :mod:`.samplers` — vectorised samplers and their exact helpers;
* :mod:`.catalogue` — the 29 mechanisms (``MECHANISMS``, :func:`get_mechanism`);
  its rows in :mod:`.catalogue_dpsniper`, :mod:`.catalogue_svt`, :mod:`.catalogue_statdp` (shared citations and
  patterns in :mod:`.catalogue_refs`);
* :mod:`.plans` — white-box plans (per-mechanism attacks and budgets), the labelled second column;
* :mod:`.run` — :func:`audit_mechanism` (the public ``audit(..., attacks="auto")``), :func:`audit_white_box`,
  :func:`run_bench` (entry point ``htdp_verify.bench``, command ``htdp-verify bench``),
  :func:`combine_bench` (``htdp-verify bench --combine``: separate runs' seeds in one table);
* :mod:`.ceiling` — the oracle ceiling (exact laws, best pair and event, whole budget on certification);
* :mod:`.tables` — ``bench.md`` / ``.csv`` / ``.png`` and the per-seed tables;
* :mod:`.checks` — one registered check per mechanism, ``benchmark.<name>``.

Spec: ``shared/specs/benchmark_mechanisms.md`` and ``shared/specs/anchors_dp_auditing.md`` §3.1.
"""

from . import checks  # noqa: F401  (registers benchmark.<name>)
from .catalogue import MECHANISMS, get_mechanism, mechanism_names
from .mechanism import OUTPUT_KINDS, BenchMechanism, extreme_pair, is_extreme
from .plans import BenchPlan, bench_plan
from .run import AUTO_FULL, AUTO_QUICK, audit_mechanism, audit_white_box, auto_sizes, combine_bench, run_bench
from .samplers import float_laplace_reachable, geo_pmf, murmur3_32, rappor_bits, svt_outcome_probability
from .tables import BENCH_COLUMNS, SEED_COLUMNS, bench_rows, seed_rows

__all__ = [
    "BenchMechanism",
    "OUTPUT_KINDS",
    "extreme_pair",
    "is_extreme",
    "float_laplace_reachable",
    "geo_pmf",
    "murmur3_32",
    "rappor_bits",
    "svt_outcome_probability",
    "MECHANISMS",
    "get_mechanism",
    "mechanism_names",
    "BenchPlan",
    "bench_plan",
    "AUTO_FULL",
    "AUTO_QUICK",
    "audit_mechanism",
    "audit_white_box",
    "auto_sizes",
    "combine_bench",
    "run_bench",
    "BENCH_COLUMNS",
    "SEED_COLUMNS",
    "bench_rows",
    "seed_rows",
]
