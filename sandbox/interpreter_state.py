"""Interpreter state a warm runner puts back before every item (sandbox/README.md § What warm mode resets). Standard library only.

A warm runner runs every item in one interpreter: each item gets a fresh module namespace, but
what user code puts in the interpreter itself would reach the next item (a counter in
``builtins`` went 1 -> 5 across items). ``InterpreterState`` is snapshotted once, after setup and
before any item, and ``restore()`` runs before every item. It must be cheap (it is on every item's
path: ``npm run bench -- sandbox``), so nothing is compared unless something says it changed:

* **Read-only modules** (``make_read_only``): every module of ``oodle_eval``, the compat shims and
  the runner itself gets a ``ReadOnlyModule`` class (``module.__class__`` assignment), whose
  ``__setattr__``/``__delattr__`` refuse with an AttributeError naming the module, and the classes
  each module defines get CPython's immutable-type flag (``Score.to_dict = ...`` raises TypeError;
  it carried to the next item). No check per item is needed for them. (The import system may still
  bind a submodule on its package.)
* **Dicts** (``builtins.__dict__``, ``sys.modules``, ``sys.__dict__``, ``os.__dict__``,
  ``os.environ``'s data, ``sys.path_importer_cache``): CPython keeps a version tag in every dict
  (``ma_version_tag``, PEP 509) that changes on every change of the dict and on nothing else;
  reading it is one 64-bit load through a ctypes view made once. Only when the tag moved is the
  dict compared with its snapshot and put back. The tag's place is checked when the snapshot is
  taken (``_tag_view``); on an interpreter where it is not where 3.11 keeps it, every dict is
  compared with ``==`` instead (correct, slower).
* **Lists**: ``sys.path``, ``sys.meta_path``, ``sys.path_hooks`` are compared with their snapshots
  (identity of each element first: a few pointer compares) and gc's callback list must be empty.
* **Setters** (one flag for all): the setters of the recursion limit, the int-digit limit, the trace
  and profile functions, of gc (enable/disable, thresholds, freeze, debug) and of signal state
  (``_signal``/``signal``: ``signal``, ``siginterrupt``, ``set_wakeup_fd``, ``pthread_sigmask``,
  ``setitimer``, ``alarm``) are wrapped to note that one ran; only then are the limits, trace and
  profile functions, gc settings, handlers, wake-up fd, signal mask and ITIMER_VIRTUAL put back.
  ``_imp.create_builtin``/``create_dynamic`` raise the flag too (a second instance of gc, _signal,
  posix or resource has setters that are not wrapped), and the limits, trace/profile functions and
  gc's enabled flag and thresholds are compared on every item anyway (six C calls).
* **Process state** (same flag): os/posix ``chdir``, ``fchdir``, ``umask``, ``putenv``,
  ``unsetenv``, ``sched_set*`` and resource ``setrlimit``/``prlimit`` are wrapped; then the working
  directory, umask, rlimits (but RLIMIT_CPU, the runner's), affinity and each C environment
  variable named since are put back. ``os.nice``/``setpriority`` cannot be undone: ``hooked``.

An audit hook cannot be removed: ``sys.addaudithook`` is wrapped too, and a runner whose user
code added one retires after the item (``hooked``).

Modules imported for the first time by an item stay imported when they were loaded from the
read-only filesystem by the standard loaders (``_genuine``: a builtin with a C module definition,
or the file an import of that name finds, equal to ``__file__``; the import cache: re-importing
numpy per item is not an option); anything else added to ``sys.modules`` is removed and a replaced entry is put back.

Not reset in warm mode (one trust domain; strict mode forks a fresh child per item and resets all
of it): attributes and contents of standard-library and package modules other than ``sys`` and
``os`` (``json.x = 1``, ``random``'s state, caches), objects mutated in place (a class attribute
of ``Score`` changed in place, a method's ``__code__``, a list held by a module), writes that go
around ``__setattr__`` (a module's ``__dict__``, a class's real dict, a function's ``__globals__``, the originals
of wrapped setters dug out of their closures, and anything done through ``ctypes``.
"""

from __future__ import annotations

import _imp
import _signal
import builtins
import gc
import importlib.machinery
import os
import resource
import sys
import time
import types

# This file's functions look builtins up in a private copy taken before any user code exists (a
# function keeps the builtins of its globals at definition): user code that replaces builtins.len
# cannot change what the runner's own code does after it, before builtins are put back.
__builtins__ = dict(builtins.__dict__)

_MISSING = object()
# Private references: posixpath's functions are not put back between items (os's are).
_stat = os.stat
_S_IFMT, _S_IFREG, _S_IFDIR = 0o170000, 0o100000, 0o040000


def _is_type(path: str, kind: int) -> bool:
    try:
        return _stat(path).st_mode & _S_IFMT == kind
    except (OSError, ValueError):
        return False

# Every rlimit but RLIMIT_CPU, whose soft limit the runner sets itself before each item.
_RLIMITS = tuple(getattr(resource, n) for n in sorted(dir(resource)) if n.startswith("RLIMIT_") and n != "RLIMIT_CPU")
_set_module_attr = types.ModuleType.__setattr__


class ReadOnlyModule(types.ModuleType):
    """A module whose attributes user code cannot set or delete (its class, assigned at runner start)."""

    __slots__ = ()

    def __setattr__(self, name, value):
        if type(value) in _MODULE_TYPES and value.__dict__.get("__name__") == f"{self.__name__}.{name}":
            _set_module_attr(self, name, value)  # the import system binding a submodule on its package
            return
        raise AttributeError(f"module {self.__name__!r} is read-only in the sandbox: its attributes are shared by every item, so {name!r} cannot be set")

    def __delattr__(self, name):
        raise AttributeError(f"module {self.__name__!r} is read-only in the sandbox: its attributes are shared by every item, so {name!r} cannot be deleted")


_MODULE_TYPES = (types.ModuleType, ReadOnlyModule)
#: Index of sys.modules in InterpreterState.watched and .tags.
MODULES = 2


# Py_TPFLAGS_IMMUTABLETYPE (CPython 3.10+): type's own setattr refuses to set or delete an attribute
# of a class with this flag ("cannot set 'to_dict' attribute of immutable type 'Score'"); it is not
# inherited, so user code's subclasses stay ordinary classes.
_IMMUTABLETYPE = 1 << 8


def _flags_view():
    """A function class -> a ctypes view of its ``tp_flags``, or None when they are not where
    CPython 3.11 keeps them (offset 168 of PyTypeObject on 64-bit; checked against ``__flags__``)."""
    if sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11) or sys.maxsize != 2**63 - 1:
        return None
    try:
        import ctypes  # noqa: PLC0415 -- trusted runner code, before any item
    except ImportError:
        return None

    class Probe:
        pass

    view = lambda cls: ctypes.c_ulong.from_address(id(cls) + 168)  # noqa: E731
    if view(Probe).value != Probe.__flags__ or view(dict).value != dict.__flags__:
        return None
    return view


_FLAGS_VIEW = _flags_view()


def freeze_classes(module: types.ModuleType) -> int:
    """Makes every class that ``module`` itself defines (``__module__`` is its name) immutable:
    assigning or deleting one of its attributes (``Score.to_dict = ...``, ``type.__setattr__``)
    raises TypeError, in warm and strict mode alike. Returns how many classes were frozen (0 off
    CPython 3.11). Not covered: writes into the class's real dict (``gc.get_referents`` of its
    mappingproxy) and objects changed in place (a method's ``__code__``): sandbox/README.md."""
    if _FLAGS_VIEW is None:
        return 0
    name = module.__dict__.get("__name__")
    frozen = 0
    for value in list(module.__dict__.values()):
        if isinstance(value, type) and value.__dict__.get("__module__") == name and value.__flags__ & (1 << 9):  # heap types only
            _FLAGS_VIEW(value).value |= _IMMUTABLETYPE
            frozen += 1
    return frozen


def make_read_only(module: types.ModuleType) -> None:
    """Gives a plain module the ReadOnlyModule class (nothing else changes: same dict, same
    identity) and makes the classes it defines immutable (``freeze_classes``)."""
    if type(module) is types.ModuleType:
        module.__class__ = ReadOnlyModule
        freeze_classes(module)


class _GuardingLoader:
    """A loader that gives the module it executed the ReadOnlyModule class (else the loader's own)."""

    def __init__(self, loader) -> None:
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        make_read_only(module)

    def __getattr__(self, name):  # get_source, get_filename, is_package, get_resource_reader ...
        return getattr(self._loader, name)


class GuardingFinder:
    """A meta-path finder for the packages named in ``roots`` (oodle_eval and the compat shims):
    each of their modules becomes read-only as soon as it has been executed, before the code that
    imported it gets it, whichever item imports it first (importing them all at start would make
    every strict-mode fork copy what the heavy ones load)."""

    def __init__(self, roots: frozenset) -> None:
        self.roots = roots

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] not in self.roots:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None and type(spec.loader) is not _GuardingLoader:
            spec.loader = _GuardingLoader(spec.loader)
        return spec


def _tag_view():
    """A function dict -> a ctypes view of its version tag, or None when the tag is not where
    CPython 3.11 keeps it (PyDictObject: refcount, type, ma_used, ma_version_tag) on this
    interpreter. Checked on a probe dict: ma_used must equal len(), the tag must change on a
    change and stay on a lookup."""
    if sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11) or sys.maxsize != 2**63 - 1:
        return None
    try:
        import ctypes  # noqa: PLC0415 -- trusted runner code, before any item
    except ImportError:
        return None
    c_uint64, c_ssize_t = ctypes.c_uint64, ctypes.c_ssize_t

    def view(d: dict):
        return c_uint64.from_address(id(d) + 24)

    probe: dict = {"a": 1}
    used = c_ssize_t.from_address(id(probe) + 16)
    tag = view(probe)
    before = tag.value
    probe.get("a")
    same = tag.value == before
    probe["b"] = 2
    changed = tag.value != before
    after = tag.value
    probe["b"] = 2  # the same value again: no change
    if not (used.value == 2 and same and changed and tag.value == after):
        return None
    return view


class _Watched:
    """One dict, its snapshot and how to put it back (``restore(watched)``)."""

    __slots__ = ("d", "snapshot", "restore", "view")

    def __init__(self, d: dict, restore, view) -> None:
        self.d = d
        self.snapshot = dict(d)
        self.restore = restore
        self.view = view(d) if view else None

    def check(self) -> None:
        """The slow way (no tags): compare with the snapshot, put back when different."""
        if self.d != self.snapshot:
            self.restore(self)


def _restore_plain(w: _Watched) -> None:
    """Removes keys the snapshot lacks and puts back every value that is not the snapshot's."""
    d, snapshot = w.d, w.snapshot
    for key in [k for k in d if k not in snapshot]:
        del d[key]
    for key, value in snapshot.items():
        if d.get(key, _MISSING) is not value:
            d[key] = value


def _origin_matches(name: str, origin: str) -> bool:
    """Whether ``origin`` is an existing file that a path-based import of ``name`` finds:
    ``.../a/b/c<suffix>`` or ``.../a/b/c/__init__<suffix>`` for ``a.b.c``."""
    stem = "/" + name.replace(".", "/")
    for suffix in importlib.machinery.all_suffixes():
        if origin.endswith(stem + suffix) or origin.endswith(stem + "/__init__" + suffix):
            return _is_type(origin, _S_IFREG)
    return False


def _module_def_view():
    """A function module -> its PyModuleDef pointer (0 for a module made in Python), or None off
    CPython 3.11 (PyModuleObject: refcount, type, md_dict, md_def)."""
    if sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11) or sys.maxsize != 2**63 - 1:
        return None
    try:
        import ctypes  # noqa: PLC0415 -- trusted runner code, before any item
    except ImportError:
        return None
    c_void_p = ctypes.c_void_p
    if not c_void_p.from_address(id(gc) + 24).value or c_void_p.from_address(id(types.ModuleType("probe")) + 24).value:
        return None
    return lambda module: c_void_p.from_address(id(module) + 24).value or 0


_FILE_LOADERS = (importlib.machinery.SourceFileLoader, importlib.machinery.SourcelessFileLoader, importlib.machinery.ExtensionFileLoader)
_CLASS_LOADERS = (importlib.machinery.BuiltinImporter, importlib.machinery.FrozenImporter)


def _noting_name(touched: list, names: set, original, name: str):
    """``original`` (os.putenv or os.unsetenv), setting ``touched[0]`` and noting the variable's name."""

    def noted(key, *args):
        touched[0] = True
        names.add(key)
        return original(key, *args)

    noted.__name__ = noted.__qualname__ = name
    noted.__doc__ = original.__doc__
    return noted


def _noting(touched: list, original, name: str):
    """``original`` (a setter of signal state), setting ``touched[0]`` when called."""

    def noted(*args, **kwargs):
        touched[0] = True
        return original(*args, **kwargs)

    noted.__name__ = noted.__qualname__ = name
    noted.__doc__ = original.__doc__
    return noted


class InterpreterState:
    """The snapshot of a warm runner's interpreter (taken by the constructor) and its ``restore``.

    ``owned_signals``: signals whose handlers the runner sets itself before each item (its
    timers): never put back here (an interval timer may fire between restore and re-arming).
    ``readonly_prefixes``: modules from these directories stay when first imported by an item
    only if read-only (GuardingFinder made them so as they were executed). ``import_prefixes``:
    directories whose modules, imported for the first time by an item, stay in ``sys.modules``.
    """

    def __init__(self, readonly_prefixes: tuple[str, ...], import_prefixes: tuple[str, ...], owned_signals: tuple[int, ...]) -> None:
        self.readonly_prefixes = readonly_prefixes
        self.import_prefixes = import_prefixes
        view = _tag_view()
        self.fast = view is not None
        self._module_def = _module_def_view()
        self._callbacks = gc.callbacks  # the list gc itself calls (rebinding gc.callbacks does not change it)
        self._setrecursionlimit, self._set_int_max_str_digits = sys.setrecursionlimit, sys.set_int_max_str_digits
        self._settrace, self._setprofile = sys.settrace, sys.setprofile
        self._gc_enable, self._gc_disable, self._gc_set_threshold = gc.enable, gc.disable, gc.set_threshold
        self._gc_unfreeze, self._gc_set_debug = gc.unfreeze, gc.set_debug
        self.touched = [False]  # set by the wrapped setters
        #: [True] once user code did what cannot be undone (an audit hook, os.nice, a lowered hard
        #: rlimit, a lost working directory): the runner retires after the item.
        self.hooked = [False]
        #: Names passed to os.putenv/os.unsetenv since the last restore (the C environment).
        self.env_names: set = set()
        self._process_snapshot()
        self._wrap_setters()
        env = os.environ
        self.environ = env
        self.environ_items = dict(env)
        # builtins first, then sys's attributes (sys.modules itself may have been rebound), then the rest.
        self.watched = (
            _Watched(builtins.__dict__, _restore_plain, view),
            _Watched(sys.__dict__, _restore_plain, view),
            _Watched(sys.modules, self._restore_modules, view),
            _Watched(os.__dict__, _restore_plain, view),
            _Watched(env.__dict__, _restore_plain, view),
            _Watched(env._data, self._restore_environ, view),
            _Watched(sys.path_importer_cache, self._restore_importer_cache, view),
        )
        # The tag each dict had when last known clean; -1: compare and put back before the next item.
        self.tags = [w.view.value for w in self.watched] if self.fast else []
        #: The view of sys.modules's tag (None without tags): the runner adds and removes the
        #: item's own module around user code (see runner.py run_item).
        self.modules_view = self.watched[MODULES].view
        self.lists = ((sys.path, list(sys.path)), (sys.meta_path, list(sys.meta_path)), (sys.path_hooks, list(sys.path_hooks)))
        self.scalars = self._scalars()
        self.handlers = {}
        for signum in _signal.valid_signals():
            handler = _signal.getsignal(signum)
            if handler is not None and signum not in owned_signals:
                self.handlers[signum] = handler
        self.mask = self._pthread_sigmask(_signal.SIG_BLOCK, [])
        self.restore = self._make_restore()

    def _process_snapshot(self) -> None:
        """The process state user code can change through os and resource (not interpreter state,
        not reset by a fresh module): working directory, umask, soft and hard rlimits but the
        runner's own RLIMIT_CPU, CPU affinity and nice value. Taken with the original functions."""
        self._chdir, self._umask, self._putenv, self._unsetenv = os.chdir, os.umask, os.putenv, os.unsetenv
        self._getrlimit, self._setrlimit_original = resource.getrlimit, resource.setrlimit
        self.cwd = os.getcwd()
        self.umask = os.umask(0o022)
        os.umask(self.umask)
        self.rlimits = [(which, resource.getrlimit(which)) for which in _RLIMITS]
        self.affinity = os.sched_getaffinity(0)
        self.priority = os.getpriority(os.PRIO_PROCESS, 0)

    def _restore_process(self) -> None:
        """Puts back what _process_snapshot took (on the slow path: a wrapped setter ran)."""
        try:
            if os.getcwd() != self.cwd:
                self._chdir(self.cwd)
        except OSError:
            self.hooked[0] = True
        self._umask(self.umask)
        for which, limits in self.rlimits:
            if self._getrlimit(which) != limits:
                try:
                    self._setrlimit_original(which, limits)
                except (OSError, ValueError):
                    self.hooked[0] = True  # a hard limit lowered: cannot be raised again
        if os.sched_getaffinity(0) != self.affinity:
            try:
                os.sched_setaffinity(0, self.affinity)
            except OSError:
                self.hooked[0] = True
        if os.getpriority(os.PRIO_PROCESS, 0) != self.priority:
            self.hooked[0] = True  # raising the priority again needs a privilege the runner lacks
        names, self.env_names = self.env_names, set()
        for name in names:
            name = name if type(name) is str else os.fsdecode(name)
            value = self.environ_items.get(name)
            try:
                if value is None:
                    self._unsetenv(name)
                else:
                    self._putenv(name, value)
            except (OSError, ValueError, TypeError):
                self.hooked[0] = True
        if names:
            time.tzset()  # TZ may have been among them

    @staticmethod
    def _scalars() -> tuple:
        return (sys.getrecursionlimit(), sys.get_int_max_str_digits(), sys.gettrace(), sys.getprofile(), gc.isenabled(), gc.get_threshold())

    # -- signals ---------------------------------------------------------------------------

    def _wrap_setters(self) -> None:
        """Every setter of signal state, of the interpreter's limits, trace and profile functions
        and of gc's settings notes that it ran (``signal``'s own wrappers call ``_signal``'s), so
        the check before an item is one flag for all of them."""
        import signal  # noqa: PLC0415

        for module, names in (
            (sys, ("setrecursionlimit", "set_int_max_str_digits", "settrace", "setprofile")),
            (gc, ("disable", "enable", "set_threshold", "freeze", "unfreeze", "set_debug")),
        ):
            for name in names:
                original = module.__dict__.get(name)
                if original is not None:
                    module.__dict__[name] = _noting(self.touched, original, name)
        sys.__dict__["addaudithook"] = _noting(self.hooked, sys.addaudithook, "addaudithook")
        # A second instance of a builtin or extension module (_imp.create_builtin(ModuleSpec("gc",
        # None)), the same for _signal, posix, resource) has setters that are not wrapped: making
        # one raises the flag. (The import system calls these too: a first import of a builtin or
        # extension module costs one slow path.)
        for name in ("create_builtin", "create_dynamic"):
            _imp.__dict__[name] = _noting(self.touched, _imp.__dict__[name], name)
        import posix  # noqa: PLC0415

        for name in ("chdir", "fchdir", "umask", "nice", "setpriority", "sched_setaffinity", "sched_setscheduler", "sched_setparam"):
            original = posix.__dict__.get(name)
            if original is not None:
                # A raised nice value cannot be lowered again without privilege: the runner retires.
                noted = _noting(self.hooked if name in ("nice", "setpriority") else self.touched, original, name)
                posix.__dict__[name] = noted
                if os.__dict__.get(name) is original:
                    os.__dict__[name] = noted
        for name in ("putenv", "unsetenv"):
            original = posix.__dict__[name]
            noted = _noting_name(self.touched, self.env_names, original, name)
            posix.__dict__[name] = noted
            if os.__dict__.get(name) is original:
                os.__dict__[name] = noted
        for name in ("setrlimit", "prlimit"):
            original = resource.__dict__.get(name)
            if original is not None:
                resource.__dict__[name] = _noting(self.touched, original, name)

        self._set_handler = _signal.signal
        self._pthread_sigmask = _signal.pthread_sigmask
        self._setitimer = _signal.setitimer
        self._set_wakeup_fd = _signal.set_wakeup_fd
        for name in ("signal", "siginterrupt", "set_wakeup_fd", "pthread_sigmask", "setitimer", "alarm"):
            original = getattr(_signal, name, None)
            if original is None:
                continue
            noted = _noting(self.touched, original, name)
            _signal.__dict__[name] = noted
            if signal.__dict__.get(name) is original:  # a plain re-export (from _signal import *)
                signal.__dict__[name] = noted

    def _restore_signals(self) -> None:
        for signum, handler in self.handlers.items():
            try:
                self._set_handler(signum, handler)  # also resets siginterrupt's flag (fresh sigaction)
            except (OSError, ValueError, TypeError):
                pass
        try:
            self._set_wakeup_fd(-1)
        except ValueError:
            pass
        self._pthread_sigmask(_signal.SIG_SETMASK, self.mask)
        self._setitimer(_signal.ITIMER_VIRTUAL, 0)

    def _restore_scalars(self) -> None:
        limit, digits, trace, profile, enabled, threshold = self.scalars
        if sys.getrecursionlimit() != limit:
            self._setrecursionlimit(limit)
        if sys.get_int_max_str_digits() != digits:
            self._set_int_max_str_digits(digits)
        if sys.gettrace() is not trace:
            self._settrace(trace)
        if sys.getprofile() is not profile:
            self._setprofile(profile)
        if gc.isenabled() != enabled:
            (self._gc_enable if enabled else self._gc_disable)()
        if gc.get_threshold() != threshold:
            self._gc_set_threshold(*threshold)
        self._gc_unfreeze()
        self._gc_set_debug(0)

    # -- dicts with their own rules ---------------------------------------------------------------

    def _genuine(self, name: str, module) -> bool:
        """A module the import system loaded from the read-only filesystem (kept: the import cache)."""
        if type(module) not in _MODULE_TYPES:
            return False
        attrs = module.__dict__
        spec = attrs.get("__spec__")
        if attrs.get("__name__") != name or type(spec) is not importlib.machinery.ModuleSpec or spec.name != name:
            return False
        loader = spec.loader
        if loader is importlib.machinery.BuiltinImporter:
            # A real builtin module: its name is one, and it has a PyModuleDef (a ModuleType made
            # in Python with a BuiltinImporter spec has none: it was a stash kept as "built in").
            return name in sys.builtin_module_names and self._module_def is not None and self._module_def(module) != 0
        if loader in _CLASS_LOADERS:
            return False  # frozen: re-imported when needed (cheap), never trusted on its spec alone
        origin = spec.origin
        if type(module) is ReadOnlyModule and type(loader) is _GuardingLoader and type(origin) is str and origin.startswith(self.readonly_prefixes):
            return True  # a module of oodle_eval or the shims imported for the first time (read-only)
        if type(loader) not in _FILE_LOADERS or type(origin) is not str or origin.startswith(self.readonly_prefixes):
            return False
        # The file the import system would have found for this name, and that exists.
        return origin.startswith(self.import_prefixes) and attrs.get("__file__") == origin and _origin_matches(name, origin)

    def _restore_modules(self, w: _Watched) -> None:
        d, snapshot = w.d, w.snapshot
        for name in [n for n in d if n not in snapshot]:
            module = d[name]
            if self._genuine(name, module):
                snapshot[name] = module
            else:
                del d[name]
        for name, module in snapshot.items():
            if d.get(name, _MISSING) is not module:
                d[name] = module

    def _restore_environ(self, w: _Watched) -> None:
        env = self.environ
        if dict(env) != self.environ_items:
            env.clear()  # unsetenv for each, then putenv for each of the snapshot
            env.update(self.environ_items)
        w.snapshot = dict(w.d)

    def _restore_importer_cache(self, w: _Watched) -> None:
        d, snapshot = w.d, w.snapshot
        for path in [p for p in d if p not in snapshot]:
            finder = d[path]
            if type(path) is str and path.startswith(self.import_prefixes) and (
                finder is None or (type(finder) is importlib.machinery.FileFinder and finder.path == path and _is_type(path, _S_IFDIR))
            ):
                snapshot[path] = finder  # a directory of the import prefixes looked up for the first time
            else:
                del d[path]
        for path, finder in snapshot.items():
            if d.get(path, _MISSING) is not finder:
                d[path] = finder

    # -- before every item ----------------------------------------------------------------------

    def _put_back(self) -> None:
        """The slow path: compare what the fast checks flagged (or everything) and put it back."""
        fast, tags = self.fast, self.tags
        for index, watched in enumerate(self.watched):
            if not fast:
                watched.check()
            elif watched.view.value != tags[index]:
                watched.restore(watched)
                tags[index] = watched.view.value
        for live, snapshot in self.lists:
            if live != snapshot:
                live[:] = snapshot
        self._callbacks.clear()
        if self.touched[0]:
            self.touched[0] = False
            self._restore_scalars()
            self._restore_signals()
            self._restore_process()
        elif self._scalars() != self.scalars:
            self._restore_scalars()

    def _make_restore(self):
        """``restore()``: puts back everything listed in the module doc that changed since the
        snapshot. Flat and with everything bound (it runs before every item): one tag load per
        dict, three list comparisons and two flags; the slow path only on a difference."""
        put_back = self._put_back
        if not self.fast:
            return put_back
        tags, touched, callbacks = self.tags, self.touched, self._callbacks
        # Compared on every item, not only when a wrapped setter ran: a second instance of gc made
        # before the wrap of _imp existed, or any path around the wrappers, is still seen.
        scalars, scalars0 = self._scalars, self.scalars
        (v0, v1, v2, v3, v4, v5, v6) = (w.view for w in self.watched)
        (path, path0), (meta, meta0), (hooks, hooks0) = self.lists

        def restore() -> None:
            if (
                touched[0] or callbacks or scalars() != scalars0
                or v0.value != tags[0] or v1.value != tags[1] or v2.value != tags[2] or v3.value != tags[3]
                or v4.value != tags[4] or v5.value != tags[5] or v6.value != tags[6]
                or path != path0 or meta != meta0 or hooks != hooks0
            ):
                put_back()

        return restore
