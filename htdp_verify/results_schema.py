"""Results read back from JSON are validated: a results file may come from someone else.

:func:`check_result_dict` is applied by :meth:`~htdp_verify.results.CheckResult.from_dict` to every result a
resume, a combined benchmark or a reproduction reads.  It validates the result against the published JSON Schema
(``htdp_verify/schemas/results.schema.json``, ``$defs/result``, with the ``jsonschema`` library) and refuses, with
the offending field named, what the toolkit never writes: unknown fields, numbers given as strings or booleans, an
α outside [0, 1], negative sizes or times, figures that are not strings.  Before that, :func:`check_depth` refuses
nesting deeper than :data:`MAX_DEPTH` (a "depth bomb" made the reader recurse until Python gave up).  Floats of the
older format ("inf", "-inf", "nan" strings in ``estimate`` and ``interval``) are still read.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib.resources import files
from typing import Any

__all__ = ["check_result_dict", "check_depth", "MAX_DEPTH"]

MAX_DEPTH = 64
_FLOAT_WORDS = ("inf", "-inf", "nan")


def check_depth(x: Any, limit: int = MAX_DEPTH, where: str = "result") -> None:
    """Raise ``ValueError`` when ``x`` nests lists / dicts deeper than ``limit`` (checked without recursion).

    Parameters
    ----------
    x
        Parsed JSON.
    limit : int
        Deepest nesting allowed.
    where : str
        What ``x`` is (for the message).
    """
    stack = [(x, 0)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (dict, list)):
            if depth >= limit:
                raise ValueError(f"{where}: nested deeper than {limit} levels; not a result this toolkit writes")
            stack.extend((c, depth + 1) for c in (v.values() if isinstance(v, dict) else v))


@lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema  # type: ignore[import-untyped]

    schema = json.loads(files("htdp_verify").joinpath("schemas/results.schema.json").read_text(encoding="utf-8"))
    # on reading, only the name and the verdict are required: files of format 1 lack fields that have defaults
    schema["$defs"]["result"]["required"] = ["name", "verdict"]
    return jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/result"})


def check_result_dict(d: Any) -> None:
    """Raise ``ValueError`` (naming the field) when ``d`` is not a result as :meth:`CheckResult.to_dict` writes it.

    Parameters
    ----------
    d
        A parsed JSON object.
    """
    if not isinstance(d, dict):
        raise ValueError(f"a result must be a JSON object, got {type(d).__name__}")
    check_depth(d)
    view = dict(d)  # format 1 wrote non-finite floats as strings
    if isinstance(view.get("estimate"), str) and view["estimate"] in _FLOAT_WORDS:
        view["estimate"] = None
    if isinstance(view.get("interval"), list):
        view["interval"] = [None if isinstance(v, str) and v in _FLOAT_WORDS else v for v in view["interval"]]
    errors = sorted(_validator().iter_errors(view), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.absolute_path) or "(the result)"
        raise ValueError(f"not a result this toolkit writes: {where}: {e.message}")
