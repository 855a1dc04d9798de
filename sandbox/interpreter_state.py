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

The runner's own modules and objects are checked, not put back (``RunnerGuard``, before each item
and before each result frame): the version tags of the dicts of the runner's modules and their
private builtins, of oodle_eval's and the shims' modules and of the runner's objects (Runner,
this snapshot, the captures, the shared-library finder and its code); an audit hook for gc's
object walkers (then the frozen classes' real dicts are compared) and for assignments of a guarded
function's ``__code__``/``__defaults__``/``__kwdefaults__`` or a guarded object's ``__class__``.
Anything found: the runner retires (and the item that did it is ``RunnerTampered``).

Not reset in warm mode (one trust domain; strict mode forks a fresh child per item and resets all
of it): attributes and contents of standard-library and package modules other than ``sys`` and
``os`` (``json.x = 1``, ``random``'s state, caches), objects mutated in place (a class attribute
of ``Score`` changed in place, a list held by a module, the originals of wrapped setters dug out
of their closures' cells, this snapshot's and the guard's own lists reached by walking frames),
and anything done through ``ctypes``.
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


def _class_dict_view():
    """A function class -> its real attribute dict (``tp_dict``, what ``cls.__dict__`` is a
    read-only proxy of), read through ctypes at offset 264 of PyTypeObject (CPython 3.11, 64-bit;
    checked against ``gc.get_referents`` of a probe's mappingproxy), or None elsewhere. Not
    through gc itself: RunnerGuard's audit hook notes every use of gc's object walkers."""
    if _FLAGS_VIEW is None:
        return None
    import ctypes  # noqa: PLC0415 -- trusted runner code, before any item

    class Probe:
        pass

    view = lambda cls: ctypes.py_object.from_address(id(cls) + 264).value  # noqa: E731
    try:
        if view(Probe) is not gc.get_referents(Probe.__dict__)[0] or view(dict) is not gc.get_referents(dict.__dict__)[0]:
            return None
    except (ValueError, IndexError):
        return None
    return view


_CLASS_DICT = _class_dict_view()
#: (class, its real dict, a copy of it) of every class freeze_classes made immutable, in order:
#: RunnerGuard compares them with their copies (only after an item used gc's object walkers).
FROZEN_CLASSES: list = []
#: (module, a copy of its dict) of every module make_read_only guarded, in order (RunnerGuard).
READ_ONLY_MODULES: list = []


def freeze_classes(module: types.ModuleType) -> int:
    """Makes every class that ``module`` itself defines (``__module__`` is its name) immutable:
    assigning or deleting one of its attributes (``Score.to_dict = ...``, ``type.__setattr__``)
    raises TypeError, in warm and strict mode alike. Returns how many classes were frozen (0 off
    CPython 3.11). Each is noted in FROZEN_CLASSES with its real dict: a write into that dict
    (``gc.get_referents`` of its mappingproxy) is RunnerGuard's to find (warm mode)."""
    if _FLAGS_VIEW is None:
        return 0
    name = module.__dict__.get("__name__")
    frozen = 0
    for value in list(module.__dict__.values()):
        if isinstance(value, type) and value.__dict__.get("__module__") == name and value.__flags__ & (1 << 9):  # heap types only
            _FLAGS_VIEW(value).value |= _IMMUTABLETYPE
            if _CLASS_DICT is not None:
                real = _CLASS_DICT(value)
                FROZEN_CLASSES.append((value, real, dict(real)))
            frozen += 1
    return frozen


def make_read_only(module: types.ModuleType) -> None:
    """Gives a plain module the ReadOnlyModule class (nothing else changes: same dict, same
    identity) and makes the classes it defines immutable (``freeze_classes``)."""
    if type(module) is types.ModuleType:
        module.__class__ = ReadOnlyModule
        freeze_classes(module)
        READ_ONLY_MODULES.append((module, dict(module.__dict__)))


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
        names = list(self.env_names)
        self.env_names.clear()  # in place: the instance's dict is watched (RunnerGuard)
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


# -- the runner's own state (warm mode) ------------------------------------------------------------

def _tags_reader(dicts: list):
    """``(memory, read)``: ``read(memory)`` is the tuple of the version tags of ``dicts`` (the
    place _tag_view checked), read in one C call: an ``itemgetter`` of the tags' indices in one
    uint64 memoryview spanning them, made through ctypes (about half the cost of a ctypes view
    per dict). Nothing else in the span is ever read, and the dicts are held by the guard."""
    import ctypes  # noqa: PLC0415 -- trusted runner code, before any item
    import operator  # noqa: PLC0415

    places = [id(d) + 24 for d in dicts] or [id(_TOLERATED_KEYS) + 24]
    low = min(places)
    memory = memoryview((ctypes.c_uint64 * ((max(places) - low) // 8 + 1)).from_address(low)).cast("B").cast("Q")
    indices = [(place - low) // 8 for place in places]
    if len(indices) == 1:
        indices.append(indices[0])  # an itemgetter of one index gives a scalar, not a tuple
    return memory, operator.itemgetter(*indices)

# Function attributes whose assignment CPython audits ("object.__setattr__"): a swapped __code__ of
# a runner function changes what it does with no dict write to see.
_AUDITED_NAMES = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__class__"})
_GC_WALKERS = frozenset({"gc.get_referents", "gc.get_referrers", "gc.get_objects"})
# A key the import system or warnings may add to a guarded module's dict by itself.
_TOLERATED_KEYS = frozenset({"__warningregistry__"})


class Tampered:
    """What RunnerGuard.check found: ``severe`` (the runner's own modules, objects or classes
    changed: the item's result cannot be trusted) or not (the runner only retires: an item walked
    gc's objects, or changed oodle_eval's or a shim's module, which can forge scores only, never
    an outcome), and ``what`` (labels of what changed, for the item's error)."""

    __slots__ = ("severe", "what")

    def __init__(self, severe: bool, what: list) -> None:
        self.severe = severe
        self.what = what


class RunnerGuard:
    """Whether user code changed the warm runner's own modules and objects (sandbox/README.md §
    What warm mode resets). ``check()`` runs before each item and again before each result frame
    is written: None when nothing changed, else a ``Tampered`` (the runner retires after it).
    (Before an item, ``check_before``: the runner's own dicts only, on the fast path.)

    Watched by version tag (one load each per check, like InterpreterState's dicts): the
    ``__dict__`` of every runner module, of its private ``__builtins__`` copy, of oodle_eval's and
    the shims' modules (read-only: only ``vars(module)`` or ``__globals__`` writes move them) and of
    the runner's objects (the Runner, its InterpreterState, the captures of stdout and stderr, the
    shared-library finder and its code and cycle dicts). The runner never writes them while items
    run (its per-item fields are slots). A moved tag is compared with the snapshot: a submodule
    bound on its package by the import system and ``__warningregistry__`` are not changes.

    An audit hook (added before any user code, never removed) notes ``gc.get_referents``,
    ``get_referrers`` and ``get_objects`` (the way to a class's real dict, or to any object) and
    the assignment of ``__code__``, ``__defaults__``, ``__kwdefaults__`` of a function of a guarded
    module, or of ``__class__`` of a guarded module or of an instance of a guarded class. After
    an item used gc's walkers, the real dict of every frozen class is compared with its copy, and
    the runner retires whatever it finds (what gc reaches cannot all be compared).

    Modules and classes first imported during an item are taken as they were when their import
    finished (make_read_only). Not covered: ctypes; the guard's own lists, reached by walking
    frames; objects changed in place (a list held by a module, a closure's cell).
    """

    __slots__ = ("labels", "dicts", "severe", "snapshots", "memory", "read", "tags", "own_memory", "own_read", "own_tags", "flags", "modules_seen", "classes_seen", "runner_globals", "fast")

    def __init__(self, runner_modules: tuple, objects: tuple, add_audit_hook) -> None:
        """``runner_modules``: the runner's own modules; ``objects``: (label, object or dict) whose
        instance dicts (or which dicts) are watched; ``add_audit_hook``: the original
        ``sys.addaudithook`` (InterpreterState's wrapper would retire the runner)."""
        self.fast = _tag_view() is not None
        self.labels: list = []
        self.dicts: list = []
        self.severe: list = []
        self.snapshots: list = []
        self.memory = self.read = self.own_memory = self.own_read = None
        self.tags: tuple = ()
        #: The tags of the runner's own dicts only (check_before).
        self.own_tags: tuple = ()
        #: [an item walked gc's objects, what a guarded function or object had assigned (or None)]
        self.flags = [False, None]
        self.runner_globals = set()
        for module in runner_modules:
            name = module.__dict__.get("__name__")
            self._watch(f"module {name}", module.__dict__, True)
            private = module.__dict__.get("__builtins__")
            if type(private) is dict and private is not builtins.__dict__:
                self._watch(f"{name}.__builtins__", private, True)
            self.runner_globals.add(id(module.__dict__))
        for label, target in objects:
            self._watch(label, target if type(target) is dict else target.__dict__, True)
        self.modules_seen = 0
        self.classes_seen = 0
        self._take_new(runner_modules, fresh=True)
        self.classes_seen = len(FROZEN_CLASSES)
        for index, (cls, real, _copy) in enumerate(FROZEN_CLASSES):
            FROZEN_CLASSES[index] = (cls, real, dict(real))  # as they are now, before any item
        self._refresh()
        add_audit_hook(_make_audit_hook(self.flags, self.runner_globals, _guarded_types))

    def rebase(self) -> None:
        """Take every watched dict as it is now (trusted code only, before any item)."""
        self.snapshots = [dict(d) for d in self.dicts]
        self._refresh()

    def _watch(self, label: str, d: dict, severe: bool) -> None:
        self.labels.append(label)
        self.dicts.append(d)
        self.severe.append(severe)
        self.snapshots.append(dict(d))

    def _refresh(self) -> None:
        if self.fast:
            self.memory, self.read = _tags_reader(self.dicts)
            self.tags = self.read(self.memory)
            self.own_memory, self.own_read = _tags_reader([d for d, severe in zip(self.dicts, self.severe) if severe])
            self.own_tags = self.own_read(self.own_memory)

    def _take_new(self, runner_modules: tuple = (), fresh: bool = False) -> None:
        """Watch the modules made read-only since the last call, as they were when made so (or
        now, when ``fresh``: before any item)."""
        runner_ids = {id(m) for m in runner_modules} | self.runner_globals
        for module, snapshot in READ_ONLY_MODULES[self.modules_seen:]:
            d = module.__dict__
            if id(module) in runner_ids or id(d) in runner_ids:
                continue
            self.labels.append(f"module {d.get('__name__')}")
            self.dicts.append(d)
            self.severe.append(False)
            self.snapshots.append(dict(d) if fresh else snapshot)
        self.modules_seen = len(READ_ONLY_MODULES)

    def check(self):
        """None when nothing guarded changed; else a Tampered (see the class doc)."""
        flags = self.flags
        if (
            self.fast and self.read(self.memory) == self.tags and not flags[0] and flags[1] is None
            and len(READ_ONLY_MODULES) == self.modules_seen and len(FROZEN_CLASSES) == self.classes_seen
        ):
            return None
        return self._slow()

    def check_before(self):
        """``check`` before an item, where only the runner's own dicts (and the audit hook's
        flags) are compared on the fast path: a change to a library module made between items
        is found by the check after the next item (it can forge scores only, never an outcome)."""
        flags = self.flags
        if self.fast and self.own_read(self.own_memory) == self.own_tags and not flags[0] and flags[1] is None:
            return None
        return self._slow()

    def _slow(self):
        flags = self.flags
        what: list = []
        severe = False
        tags = self.read(self.memory) if self.fast else ()
        for index, d in enumerate(self.dicts):
            if not self.fast or tags[index] != self.tags[index]:
                changed = _changed_keys(d, self.snapshots[index])
                if changed:
                    what.append(f"{self.labels[index]}: {', '.join(changed[:5])}")
                    severe = severe or self.severe[index]
                else:
                    self.snapshots[index] = dict(d)
        if flags[1] is not None:
            label, was_runner = flags[1]
            what.append(label)
            severe = severe or was_runner
        inspected = flags[0]
        if inspected:
            for cls, real, snapshot in FROZEN_CLASSES:
                changed = _changed_keys(real, snapshot, False)
                if changed:
                    what.append(f"class {cls.__module__}.{cls.__qualname__}: {', '.join(changed[:5])}")
                    owner = sys.modules.get(cls.__module__)
                    severe = severe or (owner is not None and id(owner.__dict__) in self.runner_globals)
            what.append("gc's object walkers were used (what they reach cannot all be checked)")
        if what:
            return Tampered(severe, what)
        self._take_new()
        self.classes_seen = len(FROZEN_CLASSES)
        self._refresh()
        return None


def _changed_keys(d: dict, snapshot: dict, module: bool = True) -> list:
    """Keys of ``d`` that differ from ``snapshot`` (added, removed, another object), but a
    submodule the import system bound on its package and the keys in _TOLERATED_KEYS."""
    changed = []
    name = d.get("__name__") if module else None
    for key, value in d.items():
        if snapshot.get(key, _MISSING) is value or key in _TOLERATED_KEYS:
            continue
        if module and key not in snapshot and type(value) is ReadOnlyModule and type(key) is str and value.__dict__.get("__name__") == f"{name}.{key}":
            continue
        changed.append(key if type(key) is str else repr(type(key)))
    for key in snapshot:
        if key not in d and key not in _TOLERATED_KEYS:
            changed.append(key if type(key) is str else repr(type(key)))
    return [k[:100] for k in changed]


def _guarded_types() -> set:
    return {id(cls) for cls, _real, _copy in FROZEN_CLASSES} | {id(ReadOnlyModule)}


def _make_audit_hook(flags: list, runner_globals: set, guarded_types):
    """The hook RunnerGuard adds: ``flags[0]`` on gc's object walkers, ``flags[1]`` = (label,
    runner's own) on an audited assignment to a guarded function or object."""
    walkers, names = _GC_WALKERS, _AUDITED_NAMES
    function = types.FunctionType
    read_only = ReadOnlyModule

    def runner_audit_hook(event, args):
        if event in walkers:
            flags[0] = True
        elif event == "object.__setattr__" and len(args) >= 2 and args[1] in names:
            target = args[0]
            kind = type(target)
            if kind is function:
                g = id(target.__globals__)
                ours = g in runner_globals
                if ours or any(id(m.__dict__) == g for m, _ in READ_ONLY_MODULES):
                    flags[1] = (f"{target.__module__}.{target.__qualname__}.{args[1]}", ours)
            elif args[1] == "__class__" and (kind is read_only or id(kind) in guarded_types()):
                flags[1] = (f"{kind.__module__}.{kind.__qualname__} object's __class__", True)

    return runner_audit_hook
