"""Reading the parameters of IRDL types and attributes back from their printed form.

The bindings expose no accessors for IRDL-defined parameters, but their generic printed form is
fixed (`#dialect.name<p0, p1, ...>`), so we split it. Values come back as Python ints, bools,
lists of ints, or the parameter's text for anything else (types, nested attributes).
"""
from __future__ import annotations

import re

_OPEN = {"<": ">", "[": "]", "(": ")", "{": "}"}
_INT = re.compile(r"^(-?\d+)(?:\s*:\s*[a-z]+\d*)?$")


def split_parameters(text: str, prefix: str) -> list[str]:
    """`prefix<a, [b, c], #x<d, e>>` -> ["a", "[b, c]", "#x<d, e>"]."""
    if not (text.startswith(prefix + "<") and text.endswith(">")):
        raise ValueError(f"'{text}' is not a {prefix}<...>")
    body = text[len(prefix) + 1:-1]
    params, depth, start, quoted = [], 0, 0, False
    for i, ch in enumerate(body):
        if ch == '"' and (i == 0 or body[i - 1] != "\\"):
            quoted = not quoted
        if quoted:
            continue
        if ch in _OPEN:
            depth += 1
        elif ch in _OPEN.values() and not (ch == ">" and i > 0 and body[i - 1] == "-"):
            depth -= 1
        elif ch == "," and depth == 0:
            params.append(body[start:i].strip())
            start = i + 1
    if body.strip():
        params.append(body[start:].strip())
    return params


def to_value(param: str):
    """An int, bool or list of ints when the parameter is one; otherwise its text."""
    if param in ("true", "false"):
        return param == "true"
    match = _INT.match(param)
    if match:
        return int(match.group(1))
    if param.startswith("[") and param.endswith("]"):
        items = [p.strip() for p in param[1:-1].split(",") if p.strip()]
        if all(_INT.match(p) for p in items):
            return [int(_INT.match(p).group(1)) for p in items]
    return param


def ints(values) -> str:
    """A list of ints as an array parameter: `[1, 4]`."""
    return "[" + ", ".join(str(int(v)) for v in values) + "]"
