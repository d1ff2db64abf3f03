"""Sphinx configuration of the htdp-verify documentation site.

Build: ``sphinx-build -W --keep-going -n -b html docs docs/_build/html`` (the script ``.ci/docs``).
The API pages are written at build time from the ``__all__`` of every public module of
``htdp_verify`` (``docs/_api.py``), so a new public name is documented without editing the docs.
The notebooks of ``notebooks/`` are copied in and rendered without execution; the user-guide pages are
MyST notebooks that the build executes at tiny sizes (a failing example fails the build).
"""

import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import _api  # noqa: E402  (docs/_api.py: API page writer)

import htdp_verify  # noqa: E402

project = "htdp-verify"
author = "the htdp-verify developers"
copyright = "2026, the htdp-verify developers"
release = htdp_verify.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
    "_checks",  # docs/_checks.py: the htdp-checks directive (registered checks of a prefix)
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints", "jupyter_execute"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"

# --- API reference -----------------------------------------------------------------------------
_API_MODULES, _API_NAMES = _api.write_api_pages(HERE / "api")
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # the numpydoc Parameters/Returns sections carry the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False  # members are listed by the class template (autodoc :members:)
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_validation_checks = {"PR01", "PR02", "RT01"}  # parameters all documented, none unknown, Returns present
# Docstrings not yet in numpydoc form are listed, one name a line, in _numpydoc_baseline.txt (written by
# `python docs/_validate.py --write-baseline`); they are excluded from the validation until fixed. The list only
# shrinks: a fixed docstring is removed from it, and every new public name is validated.
_BASELINE = [line.strip() for line in (HERE / "_numpydoc_baseline.txt").read_text().splitlines() if line.strip()]
numpydoc_validation_exclude = {r"\.__init__$", r"\.__call__$", r"\.__repr__$", r"\.__str__$"}
numpydoc_validation_exclude |= {"^" + re.escape(name) + "$" for name in _BASELINE}
# module-level data (constants, Provenance records) and class attributes that alias a builtin type
# (``output_dtype = float``) take no parameters: autodoc shows their type's docstring
numpydoc_validation_exclude |= {"^" + re.escape(name) + "$" for name in _api.data_names(_API_NAMES)}
numpydoc_validation_exclude |= {"^" + re.escape(name) + "$" for name in _api.builtin_aliases(_API_NAMES)}
nitpicky = True
# Third-party types named in docstrings: their projects' inventories are not fetched (no network at build time).
nitpick_ignore_regex = [
    ("py:mod", r"multiprocessing|concurrent\.futures"),  # standard library: its inventory is not fetched offline
    # the paper packages (estimators/, audits/) are described on the papers pages, not in the engine's API reference
    ("py:.*", r"(estimators|audits)(\..*)?"),
    (
        "py:.*",
        r"(numpy|np|scipy|pandas|matplotlib|dask|distributed|hypothesis|sklearn|diffprivlib|dp_accounting|"
        r"opendp|pydp|pytest|_pytest|jinja2|joblib|statsmodels)(\..*)?",
    ),  # third-party: no inventory offline
]

# --- notebooks (myst-nb) ------------------------------------------------------------------------
nb_execution_mode = "off"  # notebooks/ are rendered as committed (outputs stripped); guide pages opt in
nb_execution_raise_on_error = True  # an executed guide page that raises fails the build
nb_execution_timeout = 120
nb_execution_show_tb = True
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings = ["mystnb.unknown_mime_type"]

_NB_SRC = ROOT / "notebooks"
_NB_DST = HERE / "notebooks"
_NB_DST.mkdir(exist_ok=True)
for _nb in sorted(_NB_SRC.glob("*.ipynb")):
    _target = _NB_DST / _nb.name
    if not _target.exists() or _target.read_bytes() != _nb.read_bytes():
        shutil.copyfile(_nb, _target)

# --- HTML ---------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "htdp-verify"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 7,
}
html_static_path = []
html_show_sourcelink = False


# --- cross-references ---------------------------------------------------------------------------
def _resolve_short_python_names(app, env, node, contnode):
    """Resolve a short ``:func:`name``` written inside the engine to the one public object of that name.

    The engine's docstrings name objects relative to the module that defines them, while the reference
    documents each object at its public import path (for example ``htdp_verify.privacy.check_neighbours``
    rather than ``htdp_verify.privacy.neighbours.check_neighbours``). A reference that Sphinx cannot
    resolve is looked up by its trailing dotted name; it is resolved only when exactly one documented
    object matches (preferring one in the referring module's package), so an ambiguous name still warns.
    """
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip(".~")
    if not target:
        return None
    domain = env.get_domain("py")
    entries = [name for name, entry in domain.objects.items() if not entry.aliased]

    def unique(cands):
        if len(cands) <= 1:
            return cands
        # prefer the referring class, then the referring module's package
        for prefix in (
            f"{node.get('py:module')}.{node.get('py:class')}.",
            (node.get("py:module") or "").rsplit(".", 1)[0] + ".",
        ):
            near = [c for c in cands if c.startswith(prefix)]
            if len(near) == 1:
                return near
        return cands

    matches = unique([n for n in entries if n == target or n.endswith("." + target)])
    if not matches:  # a module-relative or private path ("audit.audit", "htdp_verify.privacy.guarantee.x")
        matches = unique([n for n in entries if n.endswith("." + target.rsplit(".", 1)[-1])])
    if len(matches) != 1:
        return None
    return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], matches[0], node, contnode)


def setup(app):
    app.connect("missing-reference", _resolve_short_python_names)
