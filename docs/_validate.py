"""numpydoc validation of the public API, outside Sphinx: ``python docs/_validate.py [--write-baseline]``.

Checks every object the API reference documents (the canonical public names of ``docs/_api.py`` and the public
methods and properties of their classes, as the class template's ``autoclass :members:`` shows them) for the
codes the build enforces (``CHECKS``): PR01 (a parameter not documented), PR02 (an unknown parameter documented)
and RT01 (no Returns section). Prints one line per failing object. ``--write-baseline`` writes the failing names
to ``_numpydoc_baseline.txt``, which ``conf.py`` excludes from the build's validation: the list of docstrings
still to fix, meant to shrink to nothing.
"""

import importlib
import inspect
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import _api  # noqa: E402
from numpydoc.docscrape_sphinx import get_doc_object  # noqa: E402
from numpydoc.validate import validate  # noqa: E402

CHECKS = {"PR01", "PR02", "RT01"}
BASELINE = HERE / "_numpydoc_baseline.txt"


def _resolve(fullname):
    modname, _, attr = fullname.rpartition(".")
    return getattr(importlib.import_module(modname), attr)


def documented_objects():
    """Yield ``(name, what, obj)`` for every object whose docstring the API reference renders."""
    modules = _api.public_modules()
    canon = _api.canonical_names(modules)
    for name in sorted(set(canon.values())):
        obj = _resolve(name)
        if inspect.isclass(obj):
            yield name, "class", obj
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                func = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
                if isinstance(member, property) or inspect.isfunction(func):
                    if not inspect.getdoc(member if isinstance(member, property) else func):
                        continue
                    what = "attribute" if isinstance(member, property) else "method"
                    yield f"{name}.{attr}", what, getattr(obj, attr) if what == "method" else member
        elif inspect.isfunction(obj) or inspect.isbuiltin(obj) or callable(obj) and not inspect.ismodule(obj):
            yield name, "function", obj


def failures():
    """Return ``{name: [(code, message), ...]}`` for every documented object that fails a check."""
    out = {}
    for name, what, obj in documented_objects():
        try:
            doc = get_doc_object(obj, what, inspect.getdoc(obj) or "", config={})
            errors = [e for e in validate(doc)["errors"] if e[0] in CHECKS]
        except OSError as exc:  # only RT01 reads the source, and a generated wrapper (``@st.composite``) has none
            errors = [("EXC", f"{exc}: write its Returns section (RT01 cannot read a generated function's source)")]
        except Exception as exc:  # numpydoc cannot inspect some generated members
            errors = [("EXC", f"{type(exc).__name__}: {exc}")]
        if errors:
            out[name] = errors
    return out


def main(argv):
    fails = failures()
    total = sum(1 for _ in documented_objects())
    for name, errors in fails.items():
        print(name + ": " + "; ".join(f"{code} {msg}" for code, msg in errors))
    print(f"{len(fails)} of {total} documented objects fail {sorted(CHECKS)}")
    if "--write-baseline" in argv:
        BASELINE.write_text("".join(f"{n}\n" for n in fails))
        print(f"wrote {BASELINE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
