"""The install claims one import name, `accel`: every package folder of the design card
is listed under it in pyproject.toml, and the generic names stay free."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _package_folders() -> set[str]:
    found = set()
    for top in ("compiler", "dialects", "tools"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            if "__init__.py" in files:
                rel = os.path.relpath(dirpath, ROOT).replace(os.sep, ".")
                found.add(f"accel.{rel}")
    return found


def test_every_package_folder_is_installed_under_accel():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        config = tomllib.load(f)["tool"]["setuptools"]
    assert set(config["packages"]) == _package_folders()
    assert config["package-dir"] == {"accel.compiler": "compiler", "accel.dialects": "dialects", "accel.tools": "tools"}


def test_generic_top_level_names_stay_free(tmp_path):
    # Outside the checkout only `accel` is importable.
    code = (
        "import importlib.util, accel.compiler.driver, accel.dialects.relay, accel.tools.accel_opt\n"
        "print([n for n in ('compiler', 'dialects', 'tools') if importlib.util.find_spec(n)])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------------------
# Dependencies point down: dialects <- compiler <- tools, no import circles
# --------------------------------------------------------------------------------------


def _module_imports() -> dict[str, set[str]]:
    """Every accel module and the accel modules it imports (also inside functions; not
    the `if TYPE_CHECKING:` ones, which never run)."""
    import ast

    paths = {}
    for top in ("compiler", "dialects", "tools"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if f.endswith(".py"):
                    rel = os.path.relpath(os.path.join(dirpath, f), ROOT)[:-3].replace(os.sep, ".")
                    paths["accel." + rel.removesuffix(".__init__")] = os.path.join(dirpath, f)

    def imports(tree: ast.AST) -> set[str]:
        found: set[str] = set()
        for node in ast.iter_child_nodes(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("accel."):
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    found.add(sub if sub in paths else node.module)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith("accel."))
            found |= imports(node)
        return found

    graph = {}
    for name, path in paths.items():
        with open(path, encoding="utf-8") as f:
            graph[name] = {m for m in imports(ast.parse(f.read())) if m in paths and m != name}
    return graph


def _layer(module: str) -> int:
    return {"dialects": 0, "compiler": 1, "tools": 2}[module.split(".")[1]]


def test_dependencies_point_down():
    graph = _module_imports()
    upward = sorted(f"{m} -> {t}" for m, ts in graph.items() for t in ts if _layer(t) > _layer(m))
    assert upward == []
    # Within the compiler: the targets package knows no pass and no emitter, the emitter no
    # frontend and no interpreter.
    inner = sorted(
        f"{m} -> {t}" for m, ts in graph.items() for t in ts
        if (m.startswith("accel.compiler.targets") and t.startswith(("accel.compiler.transforms", "accel.compiler.backend")))
        or (m.startswith("accel.compiler.backend") and t.startswith(("accel.compiler.frontend", "accel.compiler.runtime")))
        or (m.startswith("accel.compiler.transforms") and t.startswith(("accel.compiler.backend", "accel.compiler.frontend")))
    )  # fmt: skip
    assert inner == []


def test_no_import_circles():
    graph = _module_imports()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert circles == []
