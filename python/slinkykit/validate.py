"""``slinkykit validate``: is a site's values file a conformant slinky-slurm deployment?

Renders both charts with the values on the installed Helm, validates every object (core kinds
strictly with kubernetes-validate; custom resources against CRDs from a schema folder or the cluster;
the open container and pod-template parts of Slinky resources against the core definitions), checks
every conformance invariant, and reports *all* problems, not only Helm's first: each value Helm names
is set aside and the render repeated (see :func:`slinkykit.conformance.all_problems`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from . import CHARTS_DIR, MAIN_CHART, PRE_CHART
from .cli import EXIT_OK, EXIT_RULE, UsageError
from .conformance import Result, all_problems, error_paths
from .helm import Helm

HELP = """\
Render both charts with your values, validate every object and check the conformance invariants.
Every problem is listed with its values path; exit code 1 when there is any.

examples:
  slinkykit validate -f site-values.yaml
  slinkykit validate -f values-examples/eks-values.yaml -f site.yaml --set slinkyslurm:nodesets.gpu.replicas=8
  slinkykit validate -f site.yaml --schemas ../shared/schemas --output json

schemas for custom resources: --schemas DIR (or $SLINKYKIT_SCHEMAS), or --schemas-from-cluster to read the
Slinky CRDs with `kubectl get crd`. Without either, custom resources are reported as not checked.

exit codes: 0 conformant, 1 problems found, 2 usage error.
"""

#: The custom kinds the charts render, for --schemas-from-cluster.
RENDERED_KINDS = [{"apiVersion": "slinky.slurm.net/v1beta1", "kind": k}
                  for k in ("Controller", "LoginSet", "NodeSet", "RestApi")]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "validate", help="check a values file for a conformant deployment, listing every problem",
        description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--values", "-f", dest="value_files", action="append", default=[], type=Path, metavar="FILE",
                   required=True, help="values file, as given to both charts (repeatable; later files win)")
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="COMPONENT:PATH=VALUE",
                   help="set one value, as in `slinkykit bundle` (repeatable), e.g. slinkyslurm:storage.enabled=true")
    p.add_argument("--schemas", type=Path, metavar="DIR",
                   help="folder of CRDs (slinky/...) for custom resources (default: $SLINKYKIT_SCHEMAS)")
    p.add_argument("--schemas-from-cluster", action="store_true",
                   help="read the Slinky CRDs from the current cluster (kubectl get crd NAME -o yaml)")
    p.add_argument("--output", "-o", choices=("text", "json"), default="text", help="report format (default: text)")
    return p


def findings(result: Result) -> list[dict[str, str]]:
    """The result as a flat list of {type, path, message}, for people and machines alike."""
    out: list[dict[str, str]] = []
    for line in (result.error or "").split("\n") if result.error else []:
        paths = error_paths(line)
        out.append({"type": "chart-rule", "path": ".".join(paths[0]) if paths else "", "message": line})
    out += [{"type": f"invariant:{v.invariant}", "path": v.where, "message": v.message} for v in result.violations]
    out += [{"type": "schema", "path": f.split(": ", 1)[0], "message": f} for f in result.schema_findings]
    out += [{"type": "not-checked", "path": n.split(": ", 1)[0], "message": n} for n in result.not_checked]
    return out


def set_layer(sets: list[str]) -> dict[str, Any]:
    """``--set`` values typed exactly as `slinkykit bundle` types them."""
    from .bundle import ValuesSchema, parse_set, set_path, typed_value

    schema = ValuesSchema.for_charts([CHARTS_DIR / PRE_CHART, CHARTS_DIR / MAIN_CHART])
    layer: dict[str, Any] = {}
    for raw in sets:
        value = parse_set(raw)
        set_path(layer, value.path, typed_value(value, schema))
    return layer


def run(args: argparse.Namespace) -> int:
    from . import validation

    for f in args.value_files:
        if not f.is_file():
            raise UsageError(f"--values {f}: no such file; pass the path of a values file")
    try:
        store, source = validation.open_store(args.schemas, from_cluster=args.schemas_from_cluster)
    except NotADirectoryError as exc:
        raise UsageError(str(exc)) from exc
    if args.schemas_from_cluster:
        validation.add_cluster_crds(store, RENDERED_KINDS, set(),
                                    progress=lambda line: print(f"slinkykit validate: {line}", file=sys.stderr))
    helm = Helm.default()
    layer = set_layer(args.sets)
    result = all_problems(helm, [layer] if layer else [], store, value_files=args.value_files)
    items = findings(result)
    problems = [i for i in items if i["type"] != "not-checked"]
    if args.output == "json":
        print(json.dumps({"ok": result.ok, "values": [str(f) for f in args.value_files], "helm": helm.version,
                          "schemas": source, "objects": result.objects, "findings": items}, indent=2))
    else:
        for item in items:
            print(f"{item['type']}: {item['message']}")
        verdict = "conformant" if result.ok else f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        if result.not_checked:
            verdict += f", {len(result.not_checked)} not checked"
        print(f"{', '.join(str(f) for f in args.value_files)}: {verdict} "
              f"({result.objects} objects on Helm {helm.version}; custom resources: {source})")
    return EXIT_OK if result.ok else EXIT_RULE
