"""The ``slinkykit`` command line (also ``python -m slinkykit``).

Each subcommand lives in its own module exposing ``add_parser(subparsers)`` and ``run(args) -> int``;
add a module name to :data:`SUBCOMMANDS` to register another one.

Exit codes: 0 ok, 1 a rule was violated (chart rule, schema finding, unsupported combination) or
the work failed (I/O error, helm timed out), 2 usage error (unknown option or value, unreadable input,
refused output folder, no helm binary). Every error is one
line on stderr that names the value and the fix.
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from . import __version__

#: Modules providing a subcommand, in ``--help`` order.
SUBCOMMANDS = ("slinkykit.recipe", "slinkykit.bundle", "slinkykit.validate")

EXIT_OK = 0
EXIT_RULE = 1
EXIT_USAGE = 2

DESCRIPTION = """\
From cluster criteria to a deployable bundle of the slinky-slurm charts.

examples:
  slinkykit recipe --service eks --accelerator h100 --os ubuntu --intent training --platform slurm --output recipe.yaml
  slinkykit bundle --recipe recipe.yaml --deployer helm --output out/eks-helm
  slinkykit bundle --recipe recipe.yaml --set slinkyslurm:storage.enabled=true \\
      --shared-storage-class efs-sc --deployer flux --output out/eks-flux

Run `slinkykit COMMAND --help` for the options of each command.
"""


class UsageError(Exception):
    """A usage problem found after parsing (exit code 2); the message is one line."""


class RuleError(Exception):
    """A rule was violated (exit code 1); the message is one line."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit code 2) instead of usage plus message."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="slinkykit", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"slinkykit {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    for name in SUBCOMMANDS:
        module: Any = importlib.import_module(name)
        sub = module.add_parser(subparsers)
        sub.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (the console script exits with it)."""
    from .helm import HelmError

    parser = build_parser()
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:  # --help, --version, usage errors: argparse has printed what to say
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        code: int = args._run(args)
    except UsageError as exc:
        return _fail(args, exc, EXIT_USAGE)
    except (RuleError, HelmError) as exc:
        return _fail(args, exc, EXIT_RULE)
    except (OSError, subprocess.SubprocessError) as exc:  # I/O, a missing or hanging binary: still one line
        return _fail(args, exc, EXIT_RULE)
    except KeyboardInterrupt:
        print("slinkykit: interrupted", file=sys.stderr)
        return 130
    return code


def _fail(args: argparse.Namespace, exc: Exception, code: int) -> int:
    message = " ".join(str(exc).split()) or type(exc).__name__
    print(f"slinkykit {args.command}: error: {message}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
