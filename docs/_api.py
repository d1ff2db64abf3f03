"""Write the API reference pages from the ``__all__`` of every public module of ``htdp_verify``.

Each public name is documented once, at its canonical place: the shallowest public module whose
``__all__`` lists it (ties go to the module that defines it). Every module page lists all of its
``__all__``; names documented elsewhere link to their canonical page.
"""

import importlib
import pkgutil
from pathlib import Path

import htdp_verify

PACKAGE = "htdp_verify"
SKIP_MODULES = {"htdp_verify.cli"}  # the command line has its own page (no Python API)


def public_modules():
    """Return ``{name: module}`` for every importable public module with an ``__all__``."""
    found = {PACKAGE: htdp_verify}
    for info in pkgutil.walk_packages(htdp_verify.__path__, PACKAGE + "."):
        if any(part.startswith("_") for part in info.name.split(".")) or info.name in SKIP_MODULES:
            continue
        found[info.name] = importlib.import_module(info.name)
    return {name: mod for name, mod in sorted(found.items()) if hasattr(mod, "__all__")}


def _key(obj, name):
    if isinstance(obj, (int, float, str, bool, tuple, frozenset)) or obj is None:
        return ("value", name, repr(obj))
    return ("object", id(obj))


def canonical_names(modules):
    """Map each exported object to the dotted name it is documented under."""
    homes = {}
    for modname, mod in modules.items():
        for name in mod.__all__:
            obj = getattr(mod, name)
            homes.setdefault(_key(obj, name), []).append((modname, name, obj))
    canon = {}
    for entries in homes.values():

        def rank(entry):
            modname, _name, obj = entry
            defined_here = getattr(obj, "__module__", None) == modname
            return (modname.count("."), not defined_here, modname)

        best = min(entries, key=rank)
        for modname, name, _obj in entries:
            canon[(modname, name)] = f"{best[0]}.{best[1]}"
    return canon


def _shadowed(modname):
    """True when the parent package exports an attribute of the same name as this submodule."""
    parent, _, last = modname.rpartition(".")
    if not parent:
        return False
    attr = getattr(importlib.import_module(parent), last, None)
    return attr is not None and getattr(attr, "__name__", None) != modname


def write_api_pages(outdir):
    """Write ``modules/<module>.rst`` for every public module and return (modules, documented names)."""
    outdir = Path(outdir)
    moddir = outdir / "modules"
    moddir.mkdir(parents=True, exist_ok=True)
    modules = public_modules()
    canon = canonical_names(modules)
    documented = set()
    for modname, mod in modules.items():
        own = [n for n in mod.__all__ if canon[(modname, n)] == f"{modname}.{n}"]
        other = [n for n in mod.__all__ if canon[(modname, n)] != f"{modname}.{n}"]
        documented.update(f"{modname}.{n}" for n in own)
        lines = [modname, "=" * len(modname), "", f".. automodule:: {modname}"]
        if _shadowed(modname):
            lines.append("   :no-index:")
        lines += ["", f".. currentmodule:: {modname}", ""]
        if own:
            lines += [".. autosummary::", "   :toctree: ../generated", "   :nosignatures:", ""]
            lines += [f"   {n}" for n in own] + [""]
        if other:
            title = "Also exported here"
            lines += [
                title,
                "-" * len(title),
                "",
                "These names are documented where they are defined or first exported:",
                "",
                ".. autosummary::",
                "   :nosignatures:",
                "",
            ]
            lines += [f"   ~{canon[(modname, n)]}" for n in other] + [""]
        text = "\n".join(lines)
        path = moddir / f"{modname}.rst"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    for stale in moddir.glob("*.rst"):
        if stale.stem not in modules:
            stale.unlink()
    return modules, documented


def data_names(names):
    """The names among ``names`` that are module-level data (neither classes nor callables)."""
    out = []
    for name in names:
        modname, _, attr = name.rpartition(".")
        obj = getattr(importlib.import_module(modname), attr)
        if not (isinstance(obj, type) or callable(obj)):
            out.append(name)
    return out


def builtin_aliases(names):
    """``Class.attr`` names, for the classes among ``names``, of class attributes bound to a builtin type."""
    out = []
    for name in names:
        modname, _, attr = name.rpartition(".")
        obj = getattr(importlib.import_module(modname), attr)
        if isinstance(obj, type):
            out += [
                f"{name}.{k}"
                for k, v in vars(obj).items()
                if not k.startswith("_") and isinstance(v, type) and v.__module__ == "builtins"
            ]
    return out


if __name__ == "__main__":
    mods, names = write_api_pages(Path(__file__).parent / "api")
    total = sum(len(m.__all__) for m in mods.values())
    print(f"{len(mods)} modules, {total} entries in their __all__, {len(names)} distinct public names documented")
