"""One enumeration split across a Dask cluster gives the complex of a single process."""

import pytest

from polyregions._support import dask_clusters
from polyregions.errors import InvalidInputError
from polyregions.networks.initializers import he_normal
from polyregions.regions.domains import box, space
from polyregions.regions.enumeration import enumerate_regions
from polyregions.testing import assert_complexes_equal

distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as local:
        yield local


@pytest.mark.parametrize("widths, domain", [([3, 5, 5], box([-1] * 3, [1] * 3)), ([2, 4, 4, 3], space(2)),
                                            ([3, 6, 4], space(3))])
def test_a_cluster_gives_the_same_complex(cluster, widths, domain):
    network = he_normal(widths, seed=1)
    alone = enumerate_regions(network, domain, engine="lp")
    assert len(alone) > 8  # the split has something to split
    by_address = enumerate_regions(network, domain, engine="lp", scheduler=cluster.scheduler_address)
    assert_complexes_equal(by_address, alone)
    with distributed.Client(cluster) as client:
        assert_complexes_equal(enumerate_regions(network, domain, engine="lp", scheduler=client), alone)


def test_the_command_line_takes_a_scheduler(cluster, tmp_path, capsys):
    import json

    from polyregions.cli import main
    from polyregions.networks.io import save_network

    path = tmp_path / "net.json"
    save_network(he_normal([3, 5, 5], seed=2), path)
    assert main(["regions", str(path), "--box", "-1,1", "--json"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert main(["regions", str(path), "--box", "-1,1", "--json", "--scheduler", cluster.scheduler_address]) == 0
    split = json.loads(capsys.readouterr().out)
    assert {key: split[key] for key in ("activation_regions", "linear_regions", "adjacencies", "exact")} == \
        {key: alone[key] for key in ("activation_regions", "linear_regions", "adjacencies", "exact")}


def test_bad_schedulers_are_refused(monkeypatch):
    monkeypatch.setattr(dask_clusters, "_CONNECT_SECONDS", 1)  # nothing listens there: no need to wait 10 s
    network = he_normal([2, 3, 3], seed=0)
    with pytest.raises(InvalidInputError, match="scheduler: expected an address"):
        enumerate_regions(network, box([-1, -1], [1, 1]), engine="lp", scheduler=3)
    with pytest.raises(InvalidInputError, match="scheduler: cannot connect"):
        enumerate_regions(network, box([-1, -1], [1, 1]), engine="lp", scheduler="tcp://127.0.0.1:9")
    with pytest.raises(InvalidInputError, match="scheduler: the mesh engine runs in one process"):
        enumerate_regions(network, box([-1, -1], [1, 1]), engine="mesh", scheduler="tcp://127.0.0.1:9")
