"""Outputs that never lose work, and no process that outlives a run (issue 17, item 2).

Every output path of the command line is checked before the work starts; a write that fails later is one
``polyregions: error:`` line; a run stopped by SIGINT, SIGTERM or SIGKILL (of the parent alone or of its whole
process group) leaves the previous file or a complete new one, no temporary file once it is written again, and
no live worker. Devices and links are only ones the tests make in their own folder, except /dev/full, which
refuses every write (writing to it is harmless).
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time

import pytest

from polyregions._support.atomic import TEMPORARY_MARK
from polyregions.cli import main
from polyregions.experiments.sweeps import read_table
from polyregions.networks.initializers import he_normal
from polyregions.networks.io import save_network

NET = {"format": "polyregions.network/1", "input_dim": 2,
       "layers": [{"weight": [[1, 0], [0, 1], [1, 1]], "bias": [0, 0, "-1/2"], "activation": "relu"},
                  {"weight": [[1, -1, 2]], "bias": [0], "activation": "linear"}]}
HAS_DEV_FULL = os.path.exists("/dev/full")
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _network(tmp_path) -> str:
    path = tmp_path / "net.json"
    path.write_text(json.dumps(NET))
    return str(path)


def _leftovers(folder) -> list[str]:
    return sorted(name for name in os.listdir(folder) if TEMPORARY_MARK in name or "polyregions-lock" in name)


def _one_error_line(capsys, *parts: str) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("polyregions: error:"), err
    for part in parts:
        assert part in err, err
    return err


def _no_work(*args, **kwargs):
    raise AssertionError("the work started before the output path was checked")


# --- output paths are checked before any work --------------------------------------------------------------

def _bad_outputs(tmp_path) -> dict[str, str]:
    (tmp_path / "folder").mkdir(exist_ok=True)
    (tmp_path / "plain").write_text("a file, not a folder")
    return {"missing folder": str(tmp_path / "missing" / "out"), "a directory": str(tmp_path / "folder"),
            "under a file": str(tmp_path / "plain" / "out")}


def test_sweep_and_search_check_their_outputs_before_running(tmp_path, capsys, monkeypatch):
    import polyregions.experiments.counterexamples as counterexamples
    import polyregions.experiments.sweeps as sweeps
    monkeypatch.setattr(sweeps, "run_task", _no_work)
    monkeypatch.setattr(counterexamples, "search", _no_work)
    for kind, path in _bad_outputs(tmp_path).items():
        for argv in (["sweep", "--widths", "1,2", "--workers", "0", "-o", path],
                     ["search", "--claim", "one_layer", "--widths", "1,2", "-o", path]):
            with pytest.raises(SystemExit) as info:
                main(argv)
            assert info.value.code == 2, (kind, argv[0])
            _one_error_line(capsys, "--output: expected a file")


def test_plot_checks_its_output_before_drawing(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    import polyregions.regions.enumeration as enumeration
    monkeypatch.setattr(enumeration, "enumerate_regions", _no_work)
    for kind, path in {**_bad_outputs(tmp_path), "no picture extension": str(tmp_path / "out.txt")}.items():
        path = path if kind in ("a directory", "no picture extension") else path + ".png"
        with pytest.raises(SystemExit) as info:
            main(["plot", "regions", _network(tmp_path), "--box", "-1,1", "-o", path])
        assert info.value.code == 2, kind
        _one_error_line(capsys, "--output: expected a file")


@pytest.mark.skipif(ROOT, reason="root may write into a read-only folder")
def test_read_only_folders_are_refused_before_the_work(tmp_path, capsys, monkeypatch):
    import polyregions.regions.enumeration as enumeration
    monkeypatch.setattr(enumeration, "enumerate_regions", _no_work)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        with pytest.raises(SystemExit) as info:
            main(["regions", _network(tmp_path), "--box", "-1,1", "--export", str(locked / "c.json")])
    finally:
        locked.chmod(0o755)
    assert info.value.code == 2
    _one_error_line(capsys, "--export: expected a file in a writable directory")


# --- failed writes are one line ------------------------------------------------------------------------------

@pytest.mark.skipif(not HAS_DEV_FULL, reason="no /dev/full on this system")
def test_a_full_disk_is_one_error_line_not_success(tmp_path, capsys):
    network = _network(tmp_path)
    for argv in (["regions", network, "--box", "-1,1", "--export", "/dev/full"],
                 ["regions", network, "--box", "-1,1", "--graphml", "/dev/full"],
                 ["sweep", "--widths", "1,2", "--workers", "0", "-o", "/dev/full"],
                 ["search", "--claim", "one_layer", "--widths", "1,2,2", "-o", "/dev/full"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2, argv
        _one_error_line(capsys, "/dev/full: expected to write the file, got an error: No space left on device")


@pytest.mark.skipif(not HAS_DEV_FULL, reason="no /dev/full on this system")
def test_a_full_disk_through_a_link_in_tmp_path_keeps_the_link(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    (tmp_path / "full.png").symlink_to("/dev/full")
    with pytest.raises(SystemExit) as info:
        main(["plot", "regions", _network(tmp_path), "--box", "-1,1", "-o", str(tmp_path / "full.png")])
    assert info.value.code == 2
    _one_error_line(capsys, "full.png: expected to write the file", "No space left on device")
    assert (tmp_path / "full.png").is_symlink() and _leftovers(tmp_path) == []


def test_the_installed_command_reports_a_full_disk_without_a_traceback(tmp_path):
    if not HAS_DEV_FULL:
        pytest.skip("no /dev/full on this system")
    done = subprocess.run([sys.executable, "-m", "polyregions", "regions", _network(tmp_path), "--box", "-1,1",
                           "--export", "/dev/full"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr and done.stderr.count("\n") == 1


# --- the export is written a piece at a time ---------------------------------------------------------------

@pytest.mark.parametrize("piece", [1, 2, 1024])
def test_the_export_written_a_piece_at_a_time_is_the_documents_json(tmp_path, monkeypatch, piece):
    import polyregions as pr
    from polyregions.regions import export

    monkeypatch.setattr(export, "_PIECE", piece)
    sawtooth = pr.enumerate_regions(pr.sawtooth(3), pr.box([0], [1]))
    one = pr.enumerate_regions(pr.sawtooth(1), pr.box([0], ["1/4"]))  # one region: nothing adjacent
    plane = pr.enumerate_regions(pr.load_network(_network(tmp_path)), pr.box([-1, -1], [1, 1]))
    for name, complex_, regions in (("sawtooth", sawtooth, 8), ("one", one, 1), ("plane", plane, 7)):
        path = tmp_path / f"{name}.json"
        pr.write_complex_json(complex_, path)
        assert path.read_bytes() == (json.dumps(export.complex_to_json(complex_)) + "\n").encode()
        assert len(json.loads(path.read_text())["regions"]) == regions
    fifo = tmp_path / "export.pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    pr.write_complex_json(plane, fifo)
    reader.join(timeout=30)
    assert received == [(tmp_path / "plane.json").read_bytes()] and stat.S_ISFIFO(fifo.stat().st_mode)
    assert _leftovers(tmp_path) == []


# --- links, FIFOs and devices are written into, not replaced --------------------------------------------------

def test_export_through_a_link_and_into_a_fifo(tmp_path, capsys):
    network = _network(tmp_path)
    (tmp_path / "real.json").write_text("old")
    (tmp_path / "link.json").symlink_to("real.json")
    assert main(["regions", network, "--box", "-1,1", "--export", str(tmp_path / "link.json")]) == 0
    assert (tmp_path / "link.json").is_symlink()
    assert json.loads((tmp_path / "real.json").read_text())["summary"]["activation_regions"] == 7
    fifo = tmp_path / "graph.pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    assert main(["regions", network, "--box", "-1,1", "--graphml", str(fifo)]) == 0
    reader.join(timeout=30)
    assert received and b"<graphml" in received[0] and stat.S_ISFIFO(fifo.stat().st_mode)
    assert _leftovers(tmp_path) == []
    capsys.readouterr()


def test_export_onto_a_character_device_made_in_tmp_path(tmp_path, capsys):
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a null device of our own, never one under /dev
    except OSError as error:
        pytest.skip(f"cannot make a character device in tmp_path ({error}): needs root and CAP_MKNOD")
    assert main(["regions", _network(tmp_path), "--box", "-1,1", "--export", str(node)]) == 0
    assert stat.S_ISCHR(node.stat().st_mode) and node.stat().st_rdev == os.makedev(1, 3)
    assert sorted(os.listdir(tmp_path)) == ["net.json", "null"]
    capsys.readouterr()


def test_pictures_get_the_permissions_open_gives(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    previous = os.umask(0o022)
    try:
        with open(tmp_path / "by_open", "w"):
            pass
        for extension in ("png", "svg", "pdf"):
            picture = tmp_path / f"regions.{extension}"
            assert main(["plot", "regions", _network(tmp_path), "--box", "-1,1", "-o", str(picture)]) == 0
            assert stat.S_IMODE(picture.stat().st_mode) == stat.S_IMODE((tmp_path / "by_open").stat().st_mode)
    finally:
        os.umask(previous)
    assert _leftovers(tmp_path) == []
    capsys.readouterr()


# --- killed runs ---------------------------------------------------------------------------------------------

def _handles_sigterm(pid: int) -> bool:
    """Whether the process has installed its SIGTERM handler (the command line's, once ``main`` runs)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signal.SIGTERM - 1) & 1)
    except OSError:
        pass
    return False


def _descendants(pid: int) -> list[tuple[int, float]]:
    """(pid, start time) of every process below ``pid``."""
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        try:
            return [(p.pid, p.create_time()) for p in psutil.Process(pid).children(recursive=True)]
        except psutil.Error:
            return []
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    parents[int(entry)] = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += [(child, _start_time(child)) for child in children]
        frontier = children
    return found


def _start_time(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return float(handle.read().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return -1.0


def _alive(pid: int, started: float) -> bool:
    try:
        import psutil
    except ImportError:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            return False
        return fields[0] != "Z" and float(fields[19]) == started
    try:
        process = psutil.Process(pid)
        return process.create_time() == started and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _run_and_stop(argv: list[str], cwd, signal_name: str, target: str, delay: float):
    """Run the command in its own process group, send the signal ``delay`` seconds after the command line
    handles SIGTERM, and return (exit status, stdout, stderr) once it and every worker it started are gone."""
    process = subprocess.Popen([sys.executable, "-m", "polyregions", *argv], cwd=cwd, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    if os.path.exists(f"/proc/{process.pid}/status"):
        deadline = time.monotonic() + 60
        while not _handles_sigterm(process.pid) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
    else:
        time.sleep(2.0)  # no /proc to tell when the command line is ready: give it time to start
    time.sleep(delay)
    workers = _descendants(process.pid)
    number = getattr(signal, signal_name)
    try:
        if target == "group":
            os.killpg(process.pid, number)
        else:
            os.kill(process.pid, number)
    except ProcessLookupError:
        pass  # it had finished already
    try:
        out, err = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise AssertionError(f"{argv[0]} did not stop on {signal_name} to the {target}") from None
    deadline = time.monotonic() + 15
    while any(_alive(*worker) for worker in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = [pid for pid, started in workers if _alive(pid, started)]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert alive == [], f"workers outlived the run ({signal_name} to the {target}): {alive}"
    return process.returncode, out, err


def _check_stopped(code: int, err: str, signal_name: str) -> None:
    assert "Traceback" not in err, err
    if signal_name == "SIGKILL":
        assert code == -signal.SIGKILL
    else:
        assert code in (0, 130), (code, err)  # 0: it had finished before the signal


def _no_temporaries_once_written_again(folder, rewrite, signal_name: str) -> None:
    left = _leftovers(folder)
    if signal_name != "SIGKILL":
        assert left == []
    elif left:
        rewrite()  # a SIGKILL leaves the temporary file of a write under way: the next write removes it
        assert _leftovers(folder) == []


STOPS = [("SIGINT", "group"), ("SIGTERM", "parent"), ("SIGTERM", "group"), ("SIGKILL", "parent"),
         ("SIGKILL", "group")]
QUICK = {("SIGTERM", "parent", 0.5), ("SIGKILL", "parent", 0.5), ("SIGINT", "group", 1.0)}


def _cases():
    for signal_name, target in STOPS:
        for delay in (0.5, 1.0):
            marks = () if (signal_name, target, delay) in QUICK else (pytest.mark.slow,)
            yield pytest.param(signal_name, target, delay, marks=marks, id=f"{signal_name}-{target}-{delay}")


def _can_watch_processes() -> bool:
    try:
        import psutil  # noqa: F401
    except ImportError:
        return os.path.isdir("/proc")
    return True


killing = pytest.mark.skipif(not hasattr(os, "killpg") or not _can_watch_processes(),
                             reason="needs POSIX process groups, and psutil or /proc to find workers")


@pytest.fixture(scope="module")
def lp_network(tmp_path_factory):
    path = tmp_path_factory.mktemp("kill") / "mid.json"
    save_network(he_normal([2, 28, 28, 28], seed=0), path)  # about 3 s of work: the signals land mid-run
    return str(path)


@killing
@pytest.mark.parametrize("signal_name, target, delay", list(_cases()))
def test_killed_regions_export(tmp_path, lp_network, signal_name, target, delay):
    export = tmp_path / "complex.json"
    export.write_text("previous\n")
    argv = ["regions", lp_network, "--box", "-1,1", "--engine", "lp", "--workers", "2", "--json",
            "--export", str(export)]
    code, out, err = _run_and_stop(argv, tmp_path, signal_name, target, delay)
    _check_stopped(code, err, signal_name)
    if code == 130:
        assert err == "polyregions: interrupted\n"
    text = export.read_text()
    assert text == "previous\n" or json.loads(text)["format"] == "polyregions.regions/1"
    if code == 0:
        assert json.loads(text)["summary"] == json.loads(out)

    def rewrite():
        assert main(["regions", _network(tmp_path), "--box", "-1,1", "--export", str(export)]) == 0
    _no_temporaries_once_written_again(tmp_path, rewrite, signal_name)


SEEDS = 64  # about 2.5 s of work on two workers (25 rows a second): the signals land mid-run
SWEEP = ["sweep", "--widths", "2,40,40,40", "--seeds", f"0-{SEEDS - 1}", "--workers", "2", "--json"]


@killing
@pytest.mark.parametrize("signal_name, target, delay", list(_cases()))
def test_killed_sweep_resumes_where_it_stopped(tmp_path, signal_name, target, delay, capsys):
    table = tmp_path / "sweep.csv"
    assert main(["sweep", "--widths", "1,2", "--seeds", "7", "--workers", "0", "-o", str(table)]) == 0
    previous = read_table(table)
    capsys.readouterr()
    code, out, err = _run_and_stop([*SWEEP, "-o", str(table)], tmp_path, signal_name, target, delay)
    _check_stopped(code, err, signal_name)
    rows = read_table(table)  # a whole table: the previous one or a newer one
    assert [row for row in rows if row["architecture"] == "1-2"] == previous
    if code == 130 and out:  # the rows finished are summarised, and the interruption said
        summary = json.loads(out)
        assert summary["interrupted"] is True and summary["rows"] == len(rows)
        assert err == "polyregions: interrupted\n"
    elif code == 130:  # stopped before the sweep began (while importing, say)
        assert err == "polyregions: interrupted\n" and rows == previous
    mine = len(rows) - len(previous)
    if signal_name != "SIGKILL":
        assert _leftovers(tmp_path) == []
    assert main([*SWEEP, "-o", str(table)]) == 0  # also removes what a SIGKILL left
    summary = json.loads(capsys.readouterr().out)
    assert (summary["skipped"], summary["computed"], summary["rows"]) == (mine, SEEDS - mine, SEEDS + 1)
    assert sorted(int(row["seed"]) for row in read_table(table) if row["architecture"] == "2-40-40-40") == \
        list(range(SEEDS))
    assert os.listdir(tmp_path) == ["sweep.csv"]


@killing
@pytest.mark.parametrize("signal_name, target, delay", list(_cases()))
def test_killed_search_keeps_a_whole_certificate(tmp_path, signal_name, target, delay):
    from proofs_check.verify import verify_export

    certificate = tmp_path / "cert.json"
    certificate.write_text("previous\n")
    argv = ["search", "--claim", "raghu", "--widths", "2,4,4", "--evaluations", "5000", "--json",
            "-o", str(certificate)]
    code, out, err = _run_and_stop(argv, tmp_path, signal_name, target, delay)
    _check_stopped(code, err, signal_name)
    text = certificate.read_text()
    if code == 130 and not out:  # stopped before the search began (while importing, say)
        assert err == "polyregions: interrupted\n" and text == "previous\n"
    elif code == 130:
        summary = json.loads(out)
        assert summary["interrupted"] is True and err == "polyregions: interrupted\n"
        if summary["certificate"] is None:  # stopped before any network was evaluated
            assert text == "previous\n"
        else:
            doc = json.loads(text)
            assert doc["search"]["interrupted"] is True and verify_export(doc).ok
    else:
        assert text == "previous\n"

    def rewrite():
        assert main(["search", "--claim", "raghu", "--widths", "1,2", "--evaluations", "2", "--json",
                     "-o", str(certificate)]) == 1
    _no_temporaries_once_written_again(tmp_path, rewrite, signal_name)
