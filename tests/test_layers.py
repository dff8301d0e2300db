"""The package's layering (docs/architecture.md): every import, at module level or inside a function, goes to the
same floor or one below, and no modules import each other in a circle.

The imports are read from the source with ``ast`` (nothing is imported), so a lazy import inside a function counts
as much as one at the top: a circle that only runs later is still a circle.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "authorguard"

#: floors from the bottom up; a module may import its own floor and the floors below (docs/architecture.md)
LAYERS = (
    (
        "authorguard",
        "authorguard.exceptions",
        "authorguard.config",
        "authorguard.registry",
        "authorguard.base",
        "authorguard.utils",
    ),
    ("authorguard.text", "authorguard.embeddings"),
    ("authorguard.data",),
    ("authorguard.privacy",),
    ("authorguard.generation",),
    ("authorguard.metrics",),
    ("authorguard.neural",),
    ("authorguard.attacks", "authorguard.methods"),
    ("authorguard.experiments", "authorguard.batch"),
    ("authorguard.assess", "authorguard.check"),
    ("authorguard.api", "authorguard.cli", "authorguard.check.web"),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_modules() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imported_modules(name: str, path: Path, known: dict) -> set[str]:
    """The package's modules that ``name`` imports anywhere in its source (relative imports resolved)."""
    found = set()
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".") if is_package else name.split(".")[:-1]
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            if not target.startswith("authorguard"):
                continue
            while target not in known and "." in target:
                target = target.rsplit(".", 1)[0]
            if target != name:
                found.add(target)
    return found


def layer_of(module: str) -> int:
    best, floor = None, None
    for index, floor_members in enumerate(LAYERS):
        for member in floor_members:
            if (module == member or module.startswith(member + ".")) and (best is None or len(member) > len(best)):
                best, floor = member, index
    if floor is None:
        raise AssertionError(
            f"{module} belongs to no documented layer: add its package to LAYERS and docs/architecture.md"
        )
    return floor


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    known = package_modules()
    return {name: imported_modules(name, path, known) for name, path in known.items()}


def test_every_module_has_a_layer(graph):
    for module in graph:
        layer_of(module)


def test_no_upward_imports(graph):
    upward = sorted(
        f"{source} -> {target}"
        for source, targets in graph.items()
        for target in targets
        if layer_of(target) > layer_of(source)
    )
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one node (iterative: the package is deep)."""
    index, low, on_stack, stack, components, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = counter[0]
                    counter[0] += 1
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.get(successor, ())))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def test_no_import_cycles_between_modules(graph):
    cycles = strongly_connected(graph)
    assert not cycles, "modules that import each other in a circle: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_no_import_cycles_between_packages(graph):
    def package(module: str) -> str:
        parts = module.split(".")
        return ".".join(parts[:2]) if len(parts) > 1 else module

    packages: dict[str, set[str]] = {}
    for source, targets in graph.items():
        packages.setdefault(package(source), set()).update(package(t) for t in targets if package(t) != package(source))
    cycles = strongly_connected(packages)
    assert not cycles, "packages that import each other in a circle: " + "; ".join(" <-> ".join(c) for c in cycles)


#: the most lines a module may have: past it, a module says more than one thing (split it by responsibility)
MAX_MODULE_LINES = 500


def test_no_module_is_over_the_line_limit():
    lengths = {module_name(path): len(path.read_text(encoding="utf-8").splitlines()) for path in PACKAGE.rglob("*.py")}
    over = sorted((name, n) for name, n in lengths.items() if n > MAX_MODULE_LINES)
    assert not over, f"modules over {MAX_MODULE_LINES} lines: " + ", ".join(f"{name} ({n})" for name, n in over)


#: the most lines a function may have, decorators and signature included: past it, it does more than one step
MAX_FUNCTION_LINES = 80


def long_functions(source: str) -> list[tuple[str, int]]:
    """(name, lines) of each function of SOURCE over :data:`MAX_FUNCTION_LINES` lines."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if (lines := node.end_lineno - first + 1) > MAX_FUNCTION_LINES:
                found.append((node.name, lines))
    return found


#: an issue or pull request named by number: "issue 65", "issues 3 and 4", "issue #12", "(#123)", "gh-12"
ISSUE_NUMBER = re.compile(r"\bissues? #?[0-9]|\(#[0-9]+\)|\bgh-[0-9]", re.IGNORECASE)


def package_sources() -> list[Path]:
    """Every module of the package (checked not to be an empty list: a wrong path would pass every check)."""
    sources = sorted(PACKAGE.rglob("*.py"))
    assert len(sources) > 100, f"only {len(sources)} modules found under {PACKAGE}"
    return sources


def test_no_function_is_over_the_line_limit():
    over = [
        f"{module_name(path)}.{name} ({lines})"
        for path in package_sources()
        for name, lines in long_functions(path.read_text(encoding="utf-8"))
    ]
    assert not over, f"functions over {MAX_FUNCTION_LINES} lines: " + ", ".join(over)


def test_no_issue_numbers_in_the_code():
    """What the code does and why belongs in it; the order it was written in goes to CHANGELOG.md and docs/results."""
    found = [module_name(p) for p in package_sources() if ISSUE_NUMBER.search(p.read_text(encoding="utf-8"))]
    assert not found, "modules naming an issue: " + ", ".join(found)


def test_the_checks_catch_what_they_guard(tmp_path):
    """The walker sees a lazy import inside a function and a relative one; an upward import and a circle are found."""
    source = tmp_path / "splits.py"
    source.write_text(
        "from .corpus import Corpus\n\ndef f():\n    from authorguard.cli.app import main\n", encoding="utf-8"
    )
    known = {"authorguard.data.splits": source, "authorguard.data.corpus": source, "authorguard.cli.app": source}
    found = imported_modules("authorguard.data.splits", source, known)
    assert found == {"authorguard.data.corpus", "authorguard.cli.app"}
    assert layer_of("authorguard.cli.app") > layer_of("authorguard.data.splits")
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []
    body = "".join(f"    x = {i}\n" for i in range(MAX_FUNCTION_LINES - 1))  # with its def: at the limit
    assert long_functions(f"def f():\n{body}") == []
    assert long_functions(f"@decorated\ndef f():\n{body}") == [("f", MAX_FUNCTION_LINES + 1)]
    named = ["as issue 65 found", "issues 3 and 4", "see issue #12", "fixed (#123)", "gh-7"]
    assert all(ISSUE_NUMBER.search(line) for line in named)
    unnamed = ["the issue is the order", "issued 3 times", "colour #123456", "x[#1]"]
    assert not any(ISSUE_NUMBER.search(line) for line in unnamed)
