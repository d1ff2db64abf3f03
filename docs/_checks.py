"""The ``htdp-checks`` directive: the registered checks of a prefix, read from the registry at build time.

``{htdp-checks} hu2022`` renders a table of every check ``htdp-verify list hu2022`` shows (name, description and
source); with the ``:names-only:`` flag, a compact list of names. The registry is loaded in the build process, so
the pages cannot drift from the code.
"""
from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective


def _checks(prefix):
    from htdp_verify.registry import get_checks, load_plugins

    load_plugins()
    return get_checks([prefix])


def _cell(text):
    return " ".join(str(text).split()).replace("|", "\\|")


class HtdpChecks(SphinxDirective):
    """List the registered checks selected by one prefix."""

    required_arguments = 1
    option_spec = {"names-only": directives.flag}

    def run(self):
        checks = _checks(self.arguments[0])
        if "names-only" in self.options:
            text = ", ".join(f"``{c.name}``" for c in checks)
            lines = [f"{len(checks)} checks: {text}."]
        else:
            lines = [".. list-table::", "   :header-rows: 1", "   :widths: 30 70", "",
                     "   * - check", "     - what it tests (source)"]
            for c in checks:
                prov = c.provenance
                source = ", ".join(p for p in (prov.paper, prov.location, prov.equation) if p)
                desc = _cell(c.description) + (f" ({_cell(source)})" if source else "")
                lines += [f"   * - ``{c.name}``", f"     - {desc}"]
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source="htdp-checks"), self.content_offset, container)
        return container.children


def setup(app):
    app.add_directive("htdp-checks", HtdpChecks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
