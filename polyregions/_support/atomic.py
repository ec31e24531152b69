"""Writing files whole or not at all, and checking before a run that its outputs can be written.

Every file polyregions writes goes through :func:`atomic_write` (or its text and bytes forms). A regular file
is written to a temporary file beside it (``.NAME.polyregions-tmp.PID``), flushed to the disk and renamed over
the old one, so that a reader, a crash or an interruption sees either the old file or the whole new one. The
result looks like what ``open(path, "w")`` gives: a new file gets ``0o666 & ~umask``, a replaced one keeps its
permissions, and a symbolic link is written through (its target changes, the link stays). What is not a
regular file (a device such as ``/dev/null``, a FIFO, ``/dev/stdout`` on a pipe) is written directly, never renamed
over; the path ``-`` is standard output (:func:`documents_to` names the stream the command line keeps for it).
The temporary
file is removed on every way out (an error, Ctrl-C, SIGTERM through :mod:`polyregions._support.signals`); one left by
a process killed with SIGKILL is removed by the next write of the same path once that process is gone.
"""

from __future__ import annotations

import errno
import io
import os
import re
import stat
import sys
import threading
from contextlib import contextmanager
from typing import BinaryIO, Callable, Iterator

from polyregions._support.signals import deferred_interrupts
from polyregions.errors import InvalidInputError, OutputError

__all__ = ["atomic_write", "atomic_write_bytes", "atomic_write_text", "streamed_write", "check_output",
           "output_lock", "documents_to", "STANDARD_OUTPUT", "TEMPORARY_MARK"]

#: The path that names standard output, as Unix tools take it.
STANDARD_OUTPUT = "-"
_document_streams: list = []  # the streams "-" writes to, innermost last (the command line's real stdout)

#: What the name of a temporary file holds between the target's name and the writer's process id.
TEMPORARY_MARK = ".polyregions-tmp."
_LOCK_MARK = ".polyregions-lock"
_NAME_MAX = 255
_in_use: set[str] = set()  # temporary paths this process is writing now (several threads may write at once)
_in_use_lock = threading.Lock()


# --- where a write goes -------------------------------------------------------------------------------------

def _realpath(path: str) -> str | None:
    """``os.path.realpath(path)``, or None for a relative path when the working directory no longer exists
    (deleted while the shell stayed in it: ``realpath`` then raises ``FileNotFoundError``)."""
    try:
        return os.path.realpath(path)
    except FileNotFoundError:
        return None


_NO_WORKING_DIRECTORY = "in the working directory, which no longer exists (deleted after the shell entered it)"


def _target(path: str) -> str:
    """The file a write of ``path`` changes: the end of its chain of symbolic links."""
    target = _realpath(path)
    if target is None:
        raise OutputError(f"{path}: cannot write the file {_NO_WORKING_DIRECTORY}", errno=errno.ENOENT)
    if os.path.islink(target):
        raise OutputError(f"{path}: expected a file, got a loop of symbolic links", errno=errno.ELOOP)
    return target


def _stat(path: str, target: str) -> os.stat_result | None:
    try:
        return os.stat(target)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise _output_error(path, error) from None


@contextmanager
def documents_to(stream) -> Iterator[None]:
    """Within the block, a document written to ``-`` goes to ``stream`` (a text stream with a ``buffer``): the
    command line keeps its standard output for documents while its own text goes to standard error."""
    _document_streams.append(stream)
    try:
        yield
    finally:
        _document_streams.pop()


def _existing_special(name: str) -> bool:
    """Whether ``name`` exists and is not a regular file or a directory (a device, a FIFO, ``/dev/stdout``): such
    a path is written as it stands, its links not resolved (``/dev/stdout`` on a pipe resolves to no path)."""
    try:
        mode = os.stat(name).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def check_output(path: str | os.PathLike, *, what: str) -> None:
    """Raise :class:`~polyregions.errors.InvalidInputError` unless ``path`` can be written by :func:`atomic_write`.

    For checking a run's outputs before the run: the folder must exist and be writable, the path must not be a
    directory, and an existing file must be writable (as ``open(path, "w")`` would require). ``what`` names
    the argument in the message (``"--export"``, ``"output"``).
    """
    name = os.fspath(path)
    if not isinstance(name, str) or not name:
        raise InvalidInputError(f"{what}: expected a file path, got {path!r}")
    if name == STANDARD_OUTPUT:
        return
    if _existing_special(name):
        if not os.access(name, os.W_OK):
            raise InvalidInputError(f"{what}: expected a writable file, got {name!r}, which this process may not "
                                    f"write")
        return
    target = _realpath(name)
    if target is None:
        raise InvalidInputError(f"{what}: expected a file in an existing directory, got {name!r} "
                                f"{_NO_WORKING_DIRECTORY}")
    if os.path.islink(target):
        raise InvalidInputError(f"{what}: expected a file, got {name!r}, a loop of symbolic links")
    folder = os.path.dirname(target)
    if not os.path.exists(folder):
        raise InvalidInputError(f"{what}: expected a file in an existing directory, got {name!r} in a missing "
                                f"directory {folder!r}")
    if not os.path.isdir(folder):
        raise InvalidInputError(f"{what}: expected a file in an existing directory, got {name!r}, where "
                                f"{folder!r} is not a directory")
    if os.path.isdir(target):
        raise InvalidInputError(f"{what}: expected a file, got a directory {name!r}")
    exists = os.path.exists(target)
    if exists and not os.access(target, os.W_OK):
        raise InvalidInputError(f"{what}: expected a writable file, got {name!r}, which this process may not write")
    if (not exists or stat.S_ISREG(os.stat(target).st_mode)) and not os.access(folder, os.W_OK | os.X_OK):
        raise InvalidInputError(f"{what}: expected a file in a writable directory, got {name!r} in {folder!r}, "
                                "where this process may not create files")


# --- writing ------------------------------------------------------------------------------------------------

def atomic_write_text(path: str | os.PathLike, text: str, *, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` whole or not at all (see the module documentation)."""
    atomic_write_bytes(path, text.encode(encoding))


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (see the module documentation)."""
    atomic_write(path, lambda stream: stream.write(data))


def atomic_write(path: str | os.PathLike, write: Callable[[BinaryIO], object]) -> None:
    """Call ``write(stream)`` on a binary stream whose bytes become the file at ``path``, whole or not at all.

    For writers that want a file object, such as matplotlib's ``savefig`` or pyarrow's ``write_table``; the
    stream is seekable. A regular file (or a missing one) is replaced by a rename once the data is on the disk;
    anything else (a device, a FIFO) receives the bytes directly.

    Raises
    ------
    OutputError
        The operating system refused the write (full disk, no permission, missing folder, a directory at
        ``path``); the file at ``path`` is unchanged, and no temporary file remains.
    """
    name = os.fspath(path)
    if not isinstance(name, str):
        raise InvalidInputError(f"path: expected a file path, got {path!r}")
    if name == STANDARD_OUTPUT:
        stream = io.BytesIO()
        write(stream)
        out = _document_streams[-1] if _document_streams else sys.stdout
        out.flush()
        out.buffer.write(stream.getvalue())
        out.buffer.flush()
        return
    if _existing_special(name):
        _write_in_place(name, name, write)
        return
    target = _target(name)
    status = _stat(name, target)
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise OutputError(f"{name}: expected a file, got a directory", errno=errno.EISDIR)
    if status is not None and not stat.S_ISREG(status.st_mode):
        _write_in_place(name, target, write)
    else:
        _write_and_rename(name, target, status, write)


def streamed_write(path: str | os.PathLike, write: Callable[[BinaryIO], object]) -> None:
    """:func:`atomic_write` for a writer that never seeks: a regular file (or a missing one) is replaced whole or
    not at all, while a device or a FIFO gets the bytes as they come (:func:`atomic_write` would first gather the
    whole document in memory)."""
    name = os.fspath(path)
    target = os.path.realpath(name) if isinstance(name, str) else name
    try:
        mode: int | None = os.stat(target).st_mode
    except (OSError, TypeError, ValueError):
        mode = None
    if mode is None or stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        atomic_write(path, write)
        return
    try:
        with open(target, "wb") as stream:
            write(stream)
    except OSError as error:
        raise _output_error(name, error) from None


def _write_in_place(name: str, target: str, write: Callable[[BinaryIO], object]) -> None:
    """A device or a FIFO: no rename (it would replace the node by a regular file), the bytes go straight in."""
    buffer = io.BytesIO()  # collected first: some writers seek, which a FIFO cannot
    write(buffer)
    try:
        with open(target, "wb") as stream:
            stream.write(buffer.getbuffer())
            stream.flush()
            try:
                os.fsync(stream.fileno())
            except OSError as error:
                if error.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EROFS, errno.EBADF):
                    raise
    except OSError as error:
        raise _output_error(name, error) from None


def _write_and_rename(name: str, target: str, status: os.stat_result | None,
                      write: Callable[[BinaryIO], object]) -> None:
    if status is not None and not os.access(target, os.W_OK):
        raise OutputError(f"{name}: expected a writable file, got one this process may not write", errno=errno.EACCES)
    folder, base = os.path.split(target)
    _remove_stale(folder, base)
    temporary: str | None = None
    stream: BinaryIO | None = None
    try:
        with deferred_interrupts():  # the temporary file exists only once it is registered for removal
            temporary, handle = _create_temporary(folder, base)
            stream = os.fdopen(handle, "wb")
        if status is not None:
            _keep_owner_and_mode(stream.fileno(), status)
        write(stream)
        stream.flush()
        os.fsync(stream.fileno())
        stream.close()
        with deferred_interrupts():
            os.replace(temporary, target)
            _release(temporary)
            temporary = None
    except BaseException as error:
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass  # the data that failed to go out fails again: the file is removed anyway
        if temporary is not None:
            with deferred_interrupts():
                _remove(temporary)
                _release(temporary)
        if isinstance(error, OSError) and not isinstance(error, OutputError):
            raise _output_error(name, error) from None
        raise
    _sync_folder(folder)


def _create_temporary(folder: str, base: str) -> tuple[str, int]:
    """A new temporary file beside the target, with the mode ``open`` would give a new file (0o666 & ~umask)."""
    stem = os.path.join(folder, _temporary_prefix(base) + str(os.getpid()))
    with _in_use_lock:
        for attempt in range(1000):
            path = stem if attempt == 0 else f"{stem}.{attempt}"
            if path in _in_use:
                continue
            try:
                handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
            except FileExistsError:
                continue  # left by an earlier process that had this process id
            _in_use.add(path)
            return path, handle
    raise OutputError(f"{os.path.join(folder, base)}: expected a free temporary name, got none",
                      errno=errno.EEXIST)


def _release(temporary: str) -> None:
    with _in_use_lock:
        _in_use.discard(temporary)


def _keep_owner_and_mode(handle: int, status: os.stat_result) -> None:
    """A replaced file keeps its permissions (and, where allowed, its owner), as writing it in place would."""
    os.fchmod(handle, stat.S_IMODE(status.st_mode) & 0o777)
    mine = os.fstat(handle)
    if (mine.st_uid, mine.st_gid) != (status.st_uid, status.st_gid):
        try:
            os.fchown(handle, status.st_uid, status.st_gid)
        except OSError:
            pass  # only the owner's own groups, or root, may give a file away


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _sync_folder(folder: str) -> None:
    """Make the rename itself durable (where the system lets a folder be synced)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def _output_error(name: str, error: OSError) -> OutputError:
    reason = error.strerror or type(error).__name__
    return OutputError(f"{name}: expected to write the file, got an error: {reason}", errno=error.errno)


# --- temporary files left by killed processes ---------------------------------------------------------------

def _temporary_prefix(base: str) -> str:
    """``.NAME.polyregions-tmp.``, the name shortened so that a process id still fits in a file name."""
    room = _NAME_MAX - len(TEMPORARY_MARK) - 1 - 24
    while len(os.fsencode(base)) > room:
        base = base[:-1]
    return f".{base}{TEMPORARY_MARK}"


def _remove_stale(folder: str, base: str) -> None:
    """Remove the temporary files of ``base`` whose writers are gone (a SIGKILL leaves them behind)."""
    pattern = re.compile(re.escape(_temporary_prefix(base)) + r"(\d+)(?:\.\d+)?\Z")
    try:
        entries = [entry.name for entry in os.scandir(folder) if entry.name.startswith(".")]
    except OSError:
        return
    for entry in entries:
        match = pattern.match(entry)
        if match is None:
            continue
        path = os.path.join(folder, entry)
        pid = int(match.group(1))
        with _in_use_lock:
            stale = path not in _in_use if pid == os.getpid() else not _alive(pid)
            if stale:
                _remove(path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process (or a number no process can have: keep what is not ours to judge)
    return True


# --- one writer at a time -----------------------------------------------------------------------------------

@contextmanager
def output_lock(path: str | os.PathLike) -> Iterator[None]:
    """Hold an exclusive advisory lock (``flock``) on ``path`` between processes, for read-merge-write updates.

    The lock is a file ``.NAME.polyregions-lock`` beside the (link-resolved) path, removed on release; a
    waiter that finds its lock file removed meanwhile starts again on the new one. Without ``fcntl`` (Windows)
    there is no lock.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    name = str(os.fspath(path))
    target = _target(name)
    folder, base = os.path.split(target)
    lock = os.path.join(folder, f".{base}{_LOCK_MARK}")
    while True:
        try:
            handle = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
        except OSError as error:
            raise _output_error(name, error) from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
            held, current = os.fstat(handle), _lock_status(lock)
        except BaseException:
            os.close(handle)
            raise
        if current is not None and (current.st_dev, current.st_ino) == (held.st_dev, held.st_ino):
            break
        os.close(handle)  # the holder before us removed this lock file: take the current one
    try:
        yield
    finally:
        _remove(lock)  # before unlocking, so that no one locks a file that is about to vanish unnoticed
        os.close(handle)


def _lock_status(lock: str) -> os.stat_result | None:
    try:
        return os.stat(lock)
    except FileNotFoundError:
        return None
