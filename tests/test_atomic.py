"""The one atomic writer: whole files or none, open()'s permissions, links and devices kept, no temporary left."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import threading

import pytest

import polyregions._support.atomic as atomic
from polyregions._support.atomic import (
    TEMPORARY_MARK,
    atomic_write,
    atomic_write_bytes,
    atomic_write_text,
    check_output,
)
from polyregions.errors import InvalidInputError, OutputError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _temporaries(folder) -> list[str]:
    return sorted(name for name in os.listdir(folder) if TEMPORARY_MARK in name or "polyregions-lock" in name)


@pytest.fixture
def umask_027():
    previous = os.umask(0o027)
    yield
    os.umask(previous)


def test_atomic_writes_follow_the_umask(tmp_path):
    atomic_write_text(tmp_path / "out.json", "{}\n")
    assert (tmp_path / "out.json").stat().st_mode & 0o777 == 0o666 & ~_umask()
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


@pytest.mark.parametrize("writer", [
    lambda path: atomic_write_text(path, "x"),
    lambda path: atomic_write_bytes(path, b"x"),
    lambda path: atomic_write(path, lambda stream: stream.write(b"x")),
])
def test_every_form_gives_the_mode_open_gives(tmp_path, umask_027, writer):
    with open(tmp_path / "by_open", "w") as stream:
        stream.write("x")
    writer(tmp_path / "atomic")
    assert (tmp_path / "atomic").stat().st_mode == (tmp_path / "by_open").stat().st_mode
    assert stat.S_IMODE((tmp_path / "atomic").stat().st_mode) == 0o640


def test_a_replaced_file_keeps_its_permissions_as_with_open(tmp_path):
    path = tmp_path / "private.csv"
    path.write_text("old")
    path.chmod(0o600)
    atomic_write_text(path, "new")
    assert path.read_text() == "new" and stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_symbolic_link_is_written_through(tmp_path):
    (tmp_path / "real.json").write_text("old")
    (tmp_path / "link.json").symlink_to("real.json")
    atomic_write_text(tmp_path / "link.json", "new")
    assert (tmp_path / "link.json").is_symlink() and os.readlink(tmp_path / "link.json") == "real.json"
    assert (tmp_path / "real.json").read_text() == "new"
    (tmp_path / "dangling.json").symlink_to("made.json")
    atomic_write_text(tmp_path / "dangling.json", "made")
    assert (tmp_path / "dangling.json").is_symlink() and (tmp_path / "made.json").read_text() == "made"
    assert _temporaries(tmp_path) == []


def test_a_symbolic_link_to_a_directory_or_a_loop_is_refused(tmp_path):
    (tmp_path / "folder").mkdir()
    (tmp_path / "to_folder").symlink_to("folder")
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    for name, message in (("folder", "directory"), ("to_folder", "directory"), ("a", "loop")):
        with pytest.raises(OutputError, match=message):
            atomic_write_text(tmp_path / name, "x")
        with pytest.raises(InvalidInputError, match=message):
            check_output(tmp_path / name, what="--export")
    assert (tmp_path / "to_folder").is_symlink() and (tmp_path / "folder").is_dir()


def test_a_fifo_is_written_into_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    # a writer that seeks (as the PDF and Parquet writers do) works although a FIFO cannot seek
    atomic_write(fifo, lambda stream: (stream.write(b"xxxxx"), stream.seek(0), stream.write(b"hello")))
    reader.join(timeout=10)
    assert received == [b"hello"]
    assert stat.S_ISFIFO(fifo.stat().st_mode) and _temporaries(tmp_path) == []


def test_a_character_device_is_written_into_not_replaced(tmp_path):
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a null device, made here, never one under /dev
    except (PermissionError, OSError) as error:
        pytest.skip(f"cannot make a character device in tmp_path ({error}): needs root and CAP_MKNOD")
    atomic_write_text(node, "discarded")
    assert stat.S_ISCHR(node.stat().st_mode) and node.stat().st_rdev == os.makedev(1, 3)
    assert _temporaries(tmp_path) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_a_full_device_gives_an_output_error():
    # /dev/full refuses every write with ENOSPC: writing to it is harmless
    with pytest.raises(OutputError, match="No space left on device") as info:
        atomic_write_text("/dev/full", "x")
    assert info.value.errno == errno.ENOSPC and isinstance(info.value, OSError)
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_failing_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "table.csv"
    path.write_text("old")

    def broken(stream):
        stream.write(b"half")
        raise RuntimeError("writer failed")

    with pytest.raises(RuntimeError, match="writer failed"):
        atomic_write(path, broken)
    assert path.read_text() == "old" and _temporaries(tmp_path) == []

    def interrupted(stream):
        stream.write(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(path, interrupted)
    assert path.read_text() == "old" and _temporaries(tmp_path) == []

    def disk_full(handle):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", disk_full)
    with pytest.raises(OutputError, match="table.csv: expected to write the file, got an error: No space") as info:
        atomic_write_text(path, "new")
    assert info.value.errno == errno.ENOSPC
    assert path.read_text() == "old" and _temporaries(tmp_path) == []


def test_missing_folders_and_directories_give_output_errors(tmp_path):
    with pytest.raises(OutputError, match="No such file or directory"):
        atomic_write_text(tmp_path / "missing" / "x.json", "x")
    with pytest.raises(OutputError, match="expected a file, got a directory"):
        atomic_write_text(tmp_path, "x")


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_temporaries_of_dead_writers_are_removed_on_the_next_write(tmp_path):
    path = tmp_path / "export.json"
    dead = tmp_path / f".export.json{TEMPORARY_MARK}{_dead_pid()}"
    dead.write_text("half")
    mine = tmp_path / f".export.json{TEMPORARY_MARK}{os.getpid()}"
    mine.write_text("half, left by an earlier process with this process id")
    alive = tmp_path / f".export.json{TEMPORARY_MARK}{os.getppid()}"
    alive.write_text("being written by a live process")
    other = tmp_path / f".other.json{TEMPORARY_MARK}{_dead_pid()}"
    other.write_text("not this path's")
    atomic_write_text(path, "whole")
    assert path.read_text() == "whole"
    assert sorted(os.listdir(tmp_path)) == sorted(["export.json", alive.name, other.name])


def test_threads_writing_one_path_at_once(tmp_path):
    path = tmp_path / "shared.txt"
    texts = [str(i) * 100_000 for i in range(8)]
    threads = [threading.Thread(target=atomic_write_text, args=(path, text)) for text in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert path.read_text() in texts and os.listdir(tmp_path) == ["shared.txt"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders and files")
def test_read_only_folders_and_files_are_refused_before_writing(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "old.json").write_text("old")
    (tmp_path / "read_only.json").write_text("old")
    (tmp_path / "read_only.json").chmod(0o444)
    folder.chmod(0o555)
    try:
        with pytest.raises(InvalidInputError, match="writable directory"):
            check_output(folder / "new.json", what="--export")
        with pytest.raises(OutputError, match="Permission denied"):
            atomic_write_text(folder / "old.json", "new")
        with pytest.raises(InvalidInputError, match="writable file"):
            check_output(tmp_path / "read_only.json", what="--export")
        with pytest.raises(OutputError, match="writable file"):
            atomic_write_text(tmp_path / "read_only.json", "new")
    finally:
        folder.chmod(0o755)
    assert (folder / "old.json").read_text() == "old" == (tmp_path / "read_only.json").read_text()


def test_check_output_accepts_what_open_would_accept(tmp_path):
    check_output(tmp_path / "new.json", what="--export")
    (tmp_path / "old.json").write_text("old")
    check_output(tmp_path / "old.json", what="--export")
    with pytest.raises(InvalidInputError, match="--export: expected a file in an existing directory, got .* in a "
                                                "missing directory"):
        check_output(tmp_path / "missing" / "x.json", what="--export")
    with pytest.raises(InvalidInputError, match="is not a directory"):
        check_output(tmp_path / "old.json" / "x.json", what="--export")
    with pytest.raises(InvalidInputError, match="--export: expected a file, got a directory"):
        check_output(tmp_path, what="--export")
    assert os.listdir(tmp_path) == ["old.json"]


def test_the_output_lock_excludes_other_processes_and_leaves_no_file(tmp_path):
    path = tmp_path / "table.csv"
    script = ("import sys, time\nfrom polyregions._support.atomic import output_lock\n"
              "with output_lock(sys.argv[1]):\n    print('locked', flush=True)\n    time.sleep(1.0)\n")
    holder = subprocess.Popen([sys.executable, "-c", script, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        import time
        started = time.monotonic()
        with atomic.output_lock(path):
            waited = time.monotonic() - started
    finally:
        holder.wait(timeout=30)
    assert waited > 0.3 and os.listdir(tmp_path) == []


@pytest.fixture
def default_sigint():
    """Ctrl-C as Python's default for this test, however the test run was started: a runner (or nohup) that
    ignores SIGINT passes that disposition on, and a signal sent to this process would then never arrive."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_an_interrupt_inside_a_critical_step_arrives_when_the_step_ends(default_sigint):
    import signal
    import time

    from polyregions._support.signals import deferred_interrupts, interrupts_raise

    steps = []
    before = signal.getsignal(signal.SIGTERM)
    with interrupts_raise():
        with pytest.raises(KeyboardInterrupt):
            with deferred_interrupts():
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.05)  # the handler runs during the sleep, and holds the interrupt back
                steps.append("finished")
        assert steps == ["finished"]
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
    assert signal.getsignal(signal.SIGTERM) == before
    with pytest.raises(KeyboardInterrupt):  # a library caller's Ctrl-C is held back too
        with deferred_interrupts():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            steps.append("finished again")
    assert steps[-1] == "finished again" and signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_sigterm_during_a_write_keeps_the_old_file(tmp_path):
    import signal
    import time

    from polyregions._support.signals import interrupts_raise

    path = tmp_path / "export.json"
    path.write_text("old")

    def stopped(stream):
        stream.write(b"half")
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)

    with interrupts_raise(), pytest.raises(KeyboardInterrupt):
        atomic_write(path, stopped)
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["export.json"]
