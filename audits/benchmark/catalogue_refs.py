"""Shared pieces of the benchmark catalogue table: the cited papers, the spec file, DP-Sniper's parameter ε and the
neighbour-pattern sets (StatDP's N1 / N∞ patterns, the in-domain extreme SVT pair) used by several rows.
"""

from __future__ import annotations

from htdp_verify.privacy import statdp_patterns

from .mechanism import extreme_pair

__all__ = ["P_DPSNIPER", "P_STATDP", "P_LYU", "P_SHADOW", "SPEC", "EPS"]

# ---------------------------------------------------------------------------------------------------------
P_DPSNIPER = "Bichsel, Steffen, Bogunovic, Vechev, DP-Sniper, IEEE S&P 2021"
P_STATDP = "Ding, Wang, Wang, Zhang, Kifer, StatDP, CCS 2018"
P_LYU = "Lyu, Su, Li, Understanding the Sparse Vector Technique, PVLDB 2017"
P_SHADOW = "Wang, Ding, Wang, Kifer, Zhang, ShadowDP, PLDI 2019"
SPEC = "benchmark_mechanisms.md"

EPS = 0.1
_N1_1 = statdp_patterns(1, "N1")
_N1_5 = statdp_patterns(5, "N1")
_NI_5 = statdp_patterns(5, "Ninf")
_NI_10 = statdp_patterns(10, "Ninf")
_EXT_SVT = extreme_pair("in-domain extreme (9^9,-9)/(10^9,-10)", [9.0] * 9 + [-9.0], [10.0] * 9 + [-10.0])
