import os

from polyregions._atomic import atomic_write_text


def test_atomic_writes_follow_the_umask(tmp_path):
    atomic_write_text(tmp_path / "out.json", "{}\n")
    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "out.json").stat().st_mode & 0o777 == 0o666 & ~mask
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]
