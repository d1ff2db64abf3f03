"""Pairings of claims with estimators: each module registers named checks with ``htdp_verify.registry``.

Importing this package registers every check (the CLI does so through the ``htdp_verify.checks`` entry point).
"""
from . import selfcheck  # noqa: F401
from . import diffprivlib  # noqa: F401
