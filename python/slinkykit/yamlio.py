"""The one place slinkykit reads and writes YAML.

Output is deterministic and unambiguous for every reader on the way (PyYAML, Helm's YAML 1.1-ish
``sigs.k8s.io/yaml``, kubectl, Flux, Argo CD):

* mappings keep the order they were built in (emitters build them in a fixed order); pass
  ``sort_keys=True`` for data whose order means nothing (chart values);
* a string that any of those readers could take for something else (``yes``, ``on``, ``null``,
  ``1e3``, ``08``, ``0x1F``, ``.5``, ``""``) is single-quoted, so text stays text;
* multi-line strings are block literals (``|``), lines never wrap.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import yaml

__all__ = ["ambiguous", "dump", "dump_all", "load", "load_all"]

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER_BASE: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

#: Words some YAML reader turns into a boolean or null (YAML 1.1 and 1.2, any case).
_SPECIAL_WORDS = frozenset({"", "~", "null", "true", "false", "yes", "no", "y", "n", "on", "off"})
#: Anything some reader may take for a number: ints in any base, floats with or without a dot or
#: exponent, underscores, .inf/.nan (Go reads ``08`` and ``1e3`` as floats where PyYAML keeps text).
_NUMBER_LIKE = re.compile(
    r"[-+]?(0x[0-9a-f_]+|0o[0-7_]+|0b[01_]+|[0-9_]*\.?[0-9_]*(e[-+]?[0-9]+)?|\.inf|\.nan)", re.IGNORECASE
)


def ambiguous(text: str) -> bool:
    """True when a plain (unquoted) scalar ``text`` could be read back as something else than a string."""
    if text.lower() in _SPECIAL_WORDS:
        return True
    if not _NUMBER_LIKE.fullmatch(text):
        return False
    return any(c.isdigit() for c in text) or text.lower().lstrip("+-") in (".inf", ".nan")


class _Dumper(_DUMPER_BASE):  # type: ignore[misc]
    """Safe dumper (libyaml when available) with the quoting rules above."""


def _represent_str(dumper: Any, data: str) -> yaml.ScalarNode:
    style: str | None = None
    if "\n" in data:
        style = "|"
    elif ambiguous(data):
        style = "'"
    node: yaml.ScalarNode = dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)
    return node


_Dumper.add_representer(str, _represent_str)


def dump(data: Any, *, sort_keys: bool = False) -> str:
    """One YAML document (no ``---``), ending in a newline."""
    text: str = yaml.dump(_plain(data), Dumper=_Dumper, sort_keys=sort_keys, allow_unicode=True,
                          default_flow_style=False, width=2**31 - 1)
    return text


def dump_all(docs: Iterable[Any], *, sort_keys: bool = False) -> str:
    """Several documents, each starting with ``---``."""
    return "".join("---\n" + dump(doc, sort_keys=sort_keys) for doc in docs)


def load(text: str) -> Any:
    """Parse one document (safe loader)."""
    return yaml.load(text, Loader=_LOADER)


def load_all(text: str) -> list[Any]:
    """Parse every document, dropping empty ones."""
    return [d for d in yaml.load_all(text, Loader=_LOADER) if d is not None]


def _plain(data: Any) -> Any:
    """Mappings and tuples as plain dicts and lists (the safe dumper knows no other types)."""
    if isinstance(data, Mapping):
        return {str(k): _plain(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_plain(v) for v in data]
    return data
