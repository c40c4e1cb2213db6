"""Each module of ledgerlab imports in one direction: no import cycle, not even through an
import inside a function ("lazily, because that module imports this one") or one only for
type checking. Read with ast from every file, so a cycle no test happens to import fails."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "ledgerlab"


def module_name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, name: str, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that ``path`` (module ``name``) imports anywhere in it:
    ``from .x import y`` is module ``x.y`` if there is one, else ``x``."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            found |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                      for alias in node.names}
    return (found & modules) - {name}


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    names = {path: module_name(path, package) for path in sorted(package.rglob("*.py"))}
    return {name: imports(path, name, set(names.values())) for path, name in names.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while not component or component[-1] != node:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_of_ledgerlab_is_in_an_import_cycle():
    graph = import_graph()
    assert len(graph) > 50 and "ledgerlab.course.grading.reports" in graph
    found = cycles(graph)
    assert not found, "import cycles: " + "; ".join(
        " -> ".join(f"{module} ({', '.join(sorted(graph[module] & set(cycle)))})"
                    for module in cycle) for cycle in found)


def test_the_check_finds_a_cycle_through_a_lazy_import(tmp_path):
    # What written.py and grading/reports.py were: one imported at the top, one in a function.
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import page\n")
    (package / "b.py").write_text("def page():\n    from . import a  # lazily\n")
    (package / "c.py").write_text("from pkg import a\n")
    graph = import_graph(package)
    assert graph["pkg.a"] == {"pkg.b"} and graph["pkg.b"] == {"pkg.a"}
    assert cycles(graph) == [["pkg.a", "pkg.b"]]
