"""The packages import downward only (docs/architecture.md, "Layers"): the vocabulary imports no
other layer, the UDFs and recognizers only the vocabulary, the stages those two, the engines and
the CLI anything below; no module imports itself back through others. Imports inside functions
count as imports, and each says that it is there for start-up time. Read from the source (ast),
so that an import that only a rare path runs is seen too."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

VOCABULARY = {"rxanon_sql.errors", "rxanon_sql.labels", "rxanon_sql.common_words", "rxanon_sql.numbers",
              "rxanon_sql.months", "rxanon_sql.settings", "rxanon_sql.stages", "rxanon_sql.version",
              "rxanon_sql.faults", "rxanon_sql.sqlrun"}
ENGINES = {"rxanon_sql", "rxanon_sql.__main__", "rxanon_sql.cli", "rxanon_sql.console", "rxanon_sql.pipeline",
           "rxanon_sql.grid", "rxanon_sql.report", "rxanon_sql.generate", "rxanon_sql.export"}
TOP_PACKAGES = ("rxanon_sql.engines", "rxanon_sql.cli")     # and every module under them
LAYERS = ("vocabulary", "udfs", "stages", "engines")


def layer(module: str) -> int:
    if module in VOCABULARY:
        return 0
    if module == "udfs" or module.startswith("udfs."):
        return 1
    top = module in ENGINES or any(module == p or module.startswith(p + ".") for p in TOP_PACKAGES)
    return 3 if top else 2


def modules() -> dict[str, Path]:
    found = {}
    for package in ("rxanon_sql", "udfs"):
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = modules()


def _targets(module: str, node: ast.Import | ast.ImportFrom, is_package: bool) -> set[str]:
    """The project modules an import statement loads (the nearest module a dotted name names)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[:len(base) - node.level + 1]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        names = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in MODULES else prefix for a in node.names]
    out = set()
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name and name != module:
            out.add(name)
    return out


def imports() -> tuple[dict[str, set[str]], list[tuple[str, int, str]]]:
    """Each module's project imports (at the top and inside functions, not those under
    TYPE_CHECKING), and the function-local ones with their line."""
    graph, local = {m: set() for m in MODULES}, []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text())

        def visit(node, in_function: bool) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in _targets(module, child, path.name == "__init__.py"):
                        graph[module].add(target)
                        if in_function:
                            local.append((module, child.lineno, target))
                elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    continue
                else:
                    visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

        visit(tree, False)
    return graph, local


GRAPH, LOCAL = imports()


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_no_module_imports_itself_back():
    assert cycles(GRAPH) == []


def test_no_module_imports_a_higher_layer():
    upward = sorted(f"{m} ({LAYERS[layer(m)]}) imports {t} ({LAYERS[layer(t)]})"
                    for m, targets in GRAPH.items() for t in targets if layer(t) > layer(m))
    assert upward == []


def test_the_vocabulary_imports_only_the_vocabulary():
    assert {(m, t) for m in VOCABULARY for t in GRAPH[m] if t not in VOCABULARY} == set()


def test_every_import_inside_a_function_says_it_is_for_start_up_time():
    """On its line or the two above, or once for the module (cli/: every command imports what it
    runs); tests/test_layers.py counts them for the report."""
    unexplained = []
    for module, line, target in LOCAL:
        source = MODULES[module].read_text().splitlines()
        near = " ".join(source[max(0, line - 3):line]).lower()
        module_wide = any(l.startswith("#") and "start-up" in l and "module-wide" in l for l in source)
        if "start-up" not in near and not module_wide:
            unexplained.append(f"{module}:{line} imports {target}")
    assert unexplained == []


@pytest.mark.parametrize("edge, message", [
    ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
])
def test_the_cycle_check_finds_a_cycle(edge, message):
    assert cycles(edge) == message


def test_the_layers_are_read_from_the_tree():
    # (a module renamed or moved out of the vocabulary list would make the checks above vacuous)
    assert VOCABULARY <= set(MODULES) and ENGINES <= set(MODULES)
    assert GRAPH["rxanon_sql.pipeline"] and layer("udfs.ner") == 1 and layer("rxanon_sql.partition") == 2
    assert {"rxanon_sql.engines.spark.store", "rxanon_sql.cli.common"} <= set(MODULES)
    assert layer("rxanon_sql.engines.spark.store") == layer("rxanon_sql.cli.common") == 3


# A product module holds one concern; past 400 lines it holds several (issue 35).
MAX_LINES = 400


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_product_file_is_over_400_lines():
    assert {str(p.relative_to(ROOT)): _lines(p) for p in MODULES.values() if _lines(p) > MAX_LINES} == {}
