"""Shared libraries (``shared.<name>``) of an evaluator: served from memory by a meta-path finder,
compiled once and executed afresh for every item. Standard library only.
"""

from __future__ import annotations

import builtins
import linecache
import sys
import types

# This file's functions look builtins up in a private copy taken before any user code exists (a
# function keeps the builtins of its globals at definition): user code that replaces builtins.len
# cannot change what the runner's own code does after it, before builtins are put back.
__builtins__ = dict(builtins.__dict__)


class SharedLibraries:
    """A meta-path finder serving ``shared`` and ``shared.<name>`` from in-memory sources.

    Nothing is on disk, so user code cannot change a library. Each library is compiled once; its
    module is executed afresh for every item (``reset``). A library that imports a library it was
    not given, or that is part of an import cycle, raises ImportError naming it.
    """

    def __init__(self, sources: dict[str, str], imported_by) -> None:
        self.code: dict[str, types.CodeType] = {}
        self.loaded: list[str] = []
        self.files: set[str] = set()
        for name, source in sources.items():
            filename = f"<shared/{name}>"
            self.files.add(filename)
            linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
            self.code[name] = compile(source, filename, "exec")
        graph = {name: [d for d in imported_by(src) if d in sources] for name, src in sources.items()}
        self.cycles = _cycles(graph)

    def find_spec(self, fullname, path=None, target=None):
        import importlib.machinery

        if fullname == "shared":
            self.loaded.append("shared")
            spec = importlib.machinery.ModuleSpec("shared", self, is_package=True)
            spec.submodule_search_locations = []
            return spec
        if not fullname.startswith("shared."):
            return None
        name = fullname[len("shared."):]
        if "." in name:
            raise ImportError(f"shared library {name.split('.')[0]!r} has no submodule {name!r}", name=fullname)
        if name not in self.code:
            given = ", ".join(sorted(self.code)) or "none"
            raise ImportError(
                f"shared library {name!r} is not available to this evaluator (libraries given: {given})",
                name=fullname,
            )
        if name in self.cycles:
            raise ImportError(f"shared library {name!r} is part of an import cycle: {self.cycles[name]}", name=fullname)
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        if module.__name__ == "shared":
            module.__path__ = []
            return
        name = module.__name__[len("shared."):]
        module.__file__ = f"<shared/{name}>"
        self.loaded.append(module.__name__)
        exec(self.code[name], module.__dict__)

    def reset(self) -> None:
        """Forget the modules executed for the last item, so the next item executes them afresh."""
        if self.loaded:
            for key in self.loaded:
                sys.modules.pop(key, None)
            sys.modules.pop("shared", None)
            self.loaded.clear()


def _cycles(graph: dict[str, list[str]]) -> dict[str, str]:
    """{library: "a -> b -> a"} for every library on an import cycle."""
    found: dict[str, str] = {}

    def visit(node: str, stack: list[str]) -> None:
        if node in stack:
            cycle = stack[stack.index(node):] + [node]
            for member in cycle:
                found.setdefault(member, " -> ".join(cycle))
            return
        for dep in graph.get(node, []):
            visit(dep, stack + [node])

    for start in graph:
        visit(start, [])
    return found
