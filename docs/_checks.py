"""The ``htdp-checks`` directive: the registered checks of a prefix, read from the registry at build time.

``{htdp-checks} hu2022`` renders a definition list of every check ``htdp-verify list hu2022`` shows (name, description and
source); with the ``:names-only:`` flag, a compact list of names. The registry is loaded in the build process, so
the pages cannot drift from the code.
"""

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective


def _checks(prefix):
    from htdp_verify.registry import get_checks, load_plugins

    load_plugins()
    return get_checks([prefix])


def _cell(text):
    return " ".join(str(text).split())


class HtdpChecks(SphinxDirective):
    """List the registered checks selected by one prefix."""

    required_arguments = 1
    option_spec = {"names-only": directives.flag}

    def run(self):
        checks = _checks(self.arguments[0])
        if "names-only" in self.options:
            para = nodes.paragraph()
            para += nodes.Text(f"{len(checks)} checks: ")
            for i, c in enumerate(checks):
                para += nodes.literal(text=c.name)
                para += nodes.Text(", " if i < len(checks) - 1 else ".")
            return [para]
        dlist = nodes.definition_list()
        for c in checks:
            prov = c.provenance
            source = ", ".join(p for p in (prov.paper, prov.location, prov.equation) if p)
            item = nodes.definition_list_item()
            term = nodes.term()
            term += nodes.literal(text=c.name)
            body = nodes.definition()
            body += nodes.paragraph(text=_cell(c.description) + (f" ({_cell(source)})" if source else ""))
            item += term
            item += body
            dlist += item
        return [dlist]


def setup(app):
    app.add_directive("htdp-checks", HtdpChecks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
