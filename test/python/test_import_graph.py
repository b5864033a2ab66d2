"""The layers of ../shared/DESIGN.md, held: tilec's modules import each other without a cycle, and
none imports a tilec module inside a function (a sign that a layer is in the wrong place).

The graph is read from the sources (every `import` statement, at module level or not), so a cycle
hidden behind a late import is found too."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Where each package's sources live (setup.py maps them the same way).
PACKAGES = {"tilec": ROOT / "python" / "tilec", "tilec.dialects": ROOT / "dialects",
            "tilec.passes": ROOT / "passes", "tilec.tools": ROOT / "tools"}
EXTENSIONS = {"tilec._launch"}  # C modules: leaves


def modules() -> dict[str, Path]:
    found = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


def resolve(name: str, known) -> str | None:
    """The module `name` is, or the package that holds the name `name` imports."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports(name: str, path: Path, known) -> list[tuple[str, int, bool]]:
    """(imported tilec module, line, inside a function) for each import in the module."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []

    def visit(node, in_function: bool):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                       ast.Lambda))
            targets = []
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package
                    for _ in range(child.level - 1):
                        anchor = anchor.rpartition(".")[0]
                    base = f"{anchor}.{base}" if base else anchor
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                           for alias in child.names]
            for target in targets:
                module = resolve(target, known) if target.startswith("tilec") else None
                if module is not None and module != name:
                    found.append((module, child.lineno, in_function))
            visit(child, nested)

    visit(tree, False)
    return found


def graph():
    mods = modules()
    known = set(mods) | EXTENSIONS
    return mods, {name: imports(name, path, known) for name, path in mods.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def connect(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return found


def test_the_graph_reads_every_layer():
    mods, edges = graph()
    assert {"tilec.kernel", "tilec.launch", "tilec.runtime", "tilec.compiler",
            "tilec.analysis.axis_info", "tilec.passes.coalesce", "tilec.lowering.dot",
            "tilec.interpreter.builder", "tilec.language.standard"} <= set(mods)
    targets = {module for found in edges.values() for module, _, _ in found}
    assert "tilec.language.core" in targets and "tilec._launch" in targets


def test_no_import_cycle_among_tilec_modules():
    _, edges = graph()
    assert cycles({m: {t for t, _, _ in found} for m, found in edges.items()}) == []


def test_no_tilec_module_is_imported_inside_a_function():
    mods, edges = graph()
    late = [f"{mods[m].relative_to(ROOT)}:{line} imports {t}" for m, found in edges.items()
            for t, line, in_function in found if in_function]
    assert late == []


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_language_does_not_import_the_layers_above_it():
    """Layer 2 (the language) uses only itself, the types and the MLIR builder (DESIGN.md)."""
    _, edges = graph()
    allowed = ("tilec.language", "tilec.errors", "tilec.dialects", "tilec.diagnostics")
    for module, found in edges.items():
        if module.startswith("tilec.language"):
            assert all(t.startswith(allowed) for t, _, _ in found), (module, found)
