"""Liu et al. 2024, FRAPPE (private sparse LAD regression): its simulation data (:mod:`.data`).

The estimator is not shipped yet; when it is, it goes in this package (``estimators/frappe/``) and its audits in
``audits/frappe.py``. Spec: ``shared/specs/liu2024_frappe_lad.md``.
"""

from .data import frappe_noise, lad_regression

__all__ = ["frappe_noise", "lad_regression"]
