"""numpydoc on every public function: a docstring, a ``Parameters`` section when
it takes arguments and a ``Returns`` (or ``Yields``) section when it returns a
value.  Public: defined in an ``rftheory`` module under a name without a
leading underscore (methods of public classes included)."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "rftheory"


def _own_nodes(fn: ast.AST):
    """The nodes of ``fn``'s own body: nested functions and lambdas (and what they return) left out."""
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def _returns_value(fn: ast.AST) -> tuple[bool, bool]:
    ret = yld = False
    for node in _own_nodes(fn):
        if isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            ret = True
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            yld = True
    return ret, yld


def _nested_in_function(tree: ast.Module) -> set[int]:
    inner = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in ast.walk(node):
                if sub is not node and isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    inner.add(id(sub))
    return inner


#: backends implement a documented protocol of one-line math operations (its table
#: is in the module docstring); their methods need no numpydoc of their own
PROTOCOL_MODULES = {"rftheory/numerics/backends.py", "rftheory/numerics/iv_backend.py", "rftheory/ball/jet.py"}


def _is_protocol(cls: ast.ClassDef) -> bool:
    """Whether ``cls`` is a ``typing.Protocol``: its methods are documented where they are implemented."""
    return any(getattr(b, "id", getattr(b, "attr", None)) == "Protocol" for b in cls.bases)


def _public_functions():
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if any(part.startswith("_") and part != "__init__.py" for part in rel.parts):
            continue
        tree = ast.parse(path.read_text())
        inner = _nested_in_function(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.ClassDef) and not node.name.startswith("_") and id(node) not in inner
                    and str(rel) not in PROTOCOL_MODULES and not _is_protocol(node)):
                for fn in node.body:
                    if isinstance(fn, ast.FunctionDef) and not fn.name.startswith("_"):
                        if any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list):
                            continue  # properties: a one-line docstring, numpydoc style
                        yield f"{rel}:{fn.lineno} {node.name}.{fn.name}", fn, True
        for fn in tree.body:
            if isinstance(fn, ast.FunctionDef) and not fn.name.startswith("_"):
                yield f"{rel}:{fn.lineno} {fn.name}", fn, False


#: the signatures of a paper's registry adapters: a layer of a result called with the validated point ``p``
#: (float64, mpmath, a route, Monte Carlo ``(p, rng, n)``), its custom checks ``(mode, seed)`` or its random
#: domain points ``(rng)``; ``help(rftheory.get(ID))`` documents the result, the adapter needs one line
ADAPTER_ARGS = (("p",), ("mode", "seed"), ("rng",))


def _is_adapter(where: str, fn) -> bool:
    args = tuple(a.arg for a in fn.args.args)
    if fn.name.startswith("cmd_") and args == ("args",):  # a CLI handler: its subcommand's --help documents it
        return True
    if fn.name == "add_parser" and args[:1] == ("subparsers",):  # a subcommand's parser: its --help documents it
        return True
    if where.startswith(("rftheory/audit/gallery.py", "rftheory/audit/known_bad.py")):  # a sampler as the audit calls it: f(d, m, rng)
        return args == ("d", "m", "rng")
    return where.startswith("rftheory/papers/") and (args[:1] == ("p",) or args in ADAPTER_ARGS)


ALL = list(_public_functions())
FUNCS = [f for f in ALL if not _is_adapter(*f[:2])]
ADAPTERS = [f for f in ALL if _is_adapter(*f[:2])]


def _section(doc: str, name: str) -> bool:
    # a numpydoc heading: the name on its own line, underlined by dashes
    return re.search(rf"^\s*{name}\s*\n\s*-{{3,}}\s*$", doc, re.M) is not None


def test_functions_found():
    assert len(FUNCS) > 100


@pytest.mark.parametrize("where,fn,method", ADAPTERS, ids=[w for w, _, _ in ADAPTERS])
def test_registry_adapters_say_what_they_are(where, fn, method):
    assert ast.get_docstring(fn), f"{where}: no docstring (one line: which result, which layer)"


@pytest.mark.parametrize("where,fn,method", FUNCS, ids=[w for w, _, _ in FUNCS])
def test_numpydoc(where, fn, method):
    if any(getattr(d, "id", getattr(d, "attr", None)) == "overload" for d in fn.decorator_list):
        return  # a typing overload: the implementation below it carries the docstring
    doc = ast.get_docstring(fn)
    assert doc, f"{where}: no docstring"
    args = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]
    if method and args and args[0] in ("self", "cls"):
        args = args[1:]
    if fn.args.vararg or fn.args.kwarg:
        args.append("*")
    if args:
        assert _section(doc, "Parameters"), f"{where}: no Parameters section"
    ret, yld = _returns_value(fn)
    if ret and not yld:
        assert _section(doc, "Returns"), f"{where}: no Returns section"
    if yld:
        assert _section(doc, "Yields") or _section(doc, "Returns"), f"{where}: no Yields section"
