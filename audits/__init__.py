"""Pairings of claims with estimators: each module registers named checks with ``htdp_verify.registry``.

Importing this package registers every check (the CLI does so through the ``htdp_verify.checks`` entry point).
"""

from . import (
    diffprivlib,  # noqa: F401
    selfcheck,  # noqa: F401
)

try:  # the ground-truth auditor benchmark (needs htdp_verify.privacy.audit)
    from . import benchmark  # noqa: F401
except ImportError as _exc:  # pragma: no cover - keep the other audits usable while the auditor is missing
    import warnings

    warnings.warn(f"audits.benchmark not loaded: {_exc}", stacklevel=2)
from . import (  # noqa: F401
    accounting,
    dpem,
    hu2022,
    hu2022_algorithms,
    hu2022_rates,
    lowerbounds,
    zhao2024,
    zhao2024_compare,
)
from . import hu2022_lowerbound  # noqa: F401
from . import hu2022_experiments  # noqa: F401
from . import hu2022_sparse  # noqa: F401
from . import hu2022_sparse_rates  # noqa: F401
