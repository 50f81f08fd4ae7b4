"""Report the largest modules, classes and functions of a package, and fail past the limits.

The limits are the house style's (docs/architecture.md): a module holds one concept, so a
file past 400 lines, a class past 250 or a function past 60 is a sign that it holds several.

    python scripts/code_sizes.py [PACKAGE_DIR]     # default: mcp_sim; exit 1 over a limit
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

LIMITS = {"module": 400, "class": 250, "function": 60}


def measure(root: Path) -> dict[str, list[tuple[int, str]]]:
    """Lines per module, class and function (decorators and docstrings included)."""
    sizes: dict[str, list[tuple[int, str]]] = {kind: [] for kind in LIMITS}
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        sizes["module"].append((len(source.splitlines()), str(path)))
        for node in ast.walk(ast.parse(source, filename=str(path))):
            if isinstance(node, ast.ClassDef):
                kind = "class"
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                kind = "function"
            else:
                continue
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            sizes[kind].append((length, f"{path}:{node.lineno} {node.name}"))
    return sizes


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else "mcp_sim")
    sizes = measure(root)
    over_any = False
    for kind, limit in LIMITS.items():
        found = sorted(sizes[kind], reverse=True)
        largest = f"{found[0][0]} lines, {found[0][1]}" if found else "none"
        print(f"largest {kind}: {largest} (limit {limit})")
        for length, where in found:
            if length <= limit:
                break
            over_any = True
            print(f"  over the limit: {length} lines, {where}")
    return 1 if over_any else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
