"""The registered diffprivlib searches depend on their seed only: no wall-clock gate, stable script names."""

import os
import subprocess
import sys

from audits.diffprivlib.search import SEARCH_SIZES

CODE = (
    "from audits.diffprivlib.rootcause import _digest\n"
    "from audits.diffprivlib.space import make_config\n"
    "c = make_config('models.KMeans', 1.0, {'bounds': (0.0, 1.0), 'n_clusters': 2},\n"
    "                {'n': 20, 'd': 3, 'shape': 'spread'})\n"
    "print(_digest(c))\n"
)


def test_no_profile_screens_by_wall_clock():
    for profile, families in SEARCH_SIZES.items():
        for family, sizes in families.items():
            assert sizes.get("max_release_seconds") is None, (profile, family)


def test_reproduction_script_names_do_not_change_between_processes():
    names = set()
    for salt in ("1", "2"):  # Python salts str hashes per process; PYTHONHASHSEED fixes two different salts
        env = dict(os.environ, PYTHONHASHSEED=salt)
        out = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True, check=True)
        names.add(out.stdout.strip())
    assert len(names) == 1
