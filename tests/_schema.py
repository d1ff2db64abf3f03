"""Validation of results files against the published JSON Schema (``htdp_verify/schemas/results.schema.json``)."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import pytest


def schema() -> dict:
    return json.loads(files("htdp_verify").joinpath("schemas/results.schema.json").read_text(encoding="utf-8"))


def _strict_load(text: str):
    def bad(c):
        raise ValueError(f"non-JSON constant {c} in a results file")

    return json.loads(text, parse_constant=bad)


def validate_tree(root: Path) -> int:
    """Validate every ``results.json`` (the whole document) and every ``results.jsonl`` (each result) under ``root``;
    returns how many files were checked."""
    jsonschema = pytest.importorskip("jsonschema")
    s = schema()
    doc_validator = jsonschema.Draft202012Validator(s)
    result_validator = jsonschema.Draft202012Validator({"$defs": s["$defs"], "$ref": "#/$defs/result"})
    n = 0
    for p in Path(root).rglob("results.json"):
        doc_validator.validate(_strict_load(p.read_text(encoding="utf-8")))
        n += 1
    for p in Path(root).rglob("results.jsonl"):
        lines = p.read_text(encoding="utf-8").splitlines()
        head = _strict_load(lines[0])
        assert head["format_version"] == s["properties"]["format_version"]["const"]
        for line in lines[1:]:
            try:
                rec = _strict_load(line)
            except json.JSONDecodeError:  # a line cut short on purpose by a test
                continue
            for r in rec["results"]:
                result_validator.validate(r)
        n += 1
    return n
