"""Regions through training: counts per checkpoint, and regions matched by pattern and by overlap, against known
truths (identical and sign-flipped networks, the sawtooth family, exact tilings, an independent overlay of the
two networks) and against enumerating every checkpoint on its own."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polyregions as pr
from polyregions.cli import main
from polyregions.errors import InvalidInputError
from polyregions.experiments.checkpoint_files import load_checkpoint, load_checkpoints
from polyregions.experiments.checkpoints import CHECKPOINT_QUANTITIES, checkpoint_history
from polyregions.experiments.datasets import moons, square_domain
from polyregions.experiments.matching import match_regions
from polyregions.experiments.training import train_with_checkpoints
from polyregions.networks.initializers import he_normal, pytorch_default
from polyregions.networks.layer import Layer
from polyregions.networks.network import Network

SQUARE = pr.box([-1, -1], [1, 1])
CUBE = pr.box([-1, -1, -1], [1, 1, 1])


def _flip(network: Network, layer: int, unit: int) -> Network:
    """The network with neuron ``unit`` of hidden layer ``layer`` negated (weights and bias): the same zero set,
    the other side active."""
    layers = list(network.layers)
    old = layers[layer]
    weight = [tuple(-w for w in row) if k == unit else row for k, row in enumerate(old.weight)]
    bias = [-c if k == unit else c for k, c in enumerate(old.bias)]
    layers[layer] = Layer(weight, bias, old.activation)
    return Network(network.input_dim, tuple(layers))


def _overlay(a: Network, b: Network) -> Network:
    """Both networks side by side on one input (same depth and activations): its activation regions are the
    full-dimensional intersections of a region of ``a`` with a region of ``b``; its patterns are theirs joined."""
    layers = []
    for k, (la, lb) in enumerate(zip(a.layers, b.layers)):
        assert la.activation == lb.activation
        if k == 0:
            weight = list(la.weight) + list(lb.weight)
        else:
            weight = [row + (Fraction(0),) * lb.fan_in for row in la.weight] + \
                     [(Fraction(0),) * la.fan_in + row for row in lb.weight]
        layers.append(Layer(weight, la.bias + lb.bias, la.activation))
    return Network(a.input_dim, tuple(layers))


def _split_patterns(a: Network, b: Network, pattern: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The overlay's pattern as the patterns of ``a`` and ``b`` (neurons layer by layer, ``a``'s first)."""
    left, right, start = [], [], 0
    for la, lb in zip(a.layers, b.layers):
        if la.activation.name == "linear":
            continue
        left += pattern[start:start + la.width]
        right += pattern[start + la.width:start + la.width + lb.width]
        start += la.width + lb.width
    return tuple(left), tuple(right)


# --- identical checkpoints ----------------------------------------------------------------------------------

@pytest.mark.parametrize("network, domain", [
    (he_normal([2, 6, 5], seed=3), SQUARE),
    (pytorch_default([2, 8, 8], seed=1, output_dim=2), pr.box([-2, -1], [1, 3])),
    (he_normal([1, 5, 5], seed=0), pr.box([-1], [1])),
    (he_normal([3, 4, 3], seed=2), CUBE),
    (he_normal([2, 3, 3], seed=5), pr.space(2)),
])
def test_identical_checkpoints_match_every_region_to_itself(network, domain):
    history = checkpoint_history([network, network], domain)
    regions = history.records[0].regions
    n = len(regions)
    m = history.matchings[0]
    assert m.by_pattern == tuple(range(n))
    assert m.overlaps == tuple((i,) for i in range(n))
    assert (m.persisted, m.died, m.born, m.split, m.merged, m.one_to_one) == (n, 0, 0, 0, 0, n)
    assert m.persisted_overlapping == n
    if domain.is_bounded():
        assert m.overlap_volumes == tuple((r.polytope.volume(),) for r in regions.regions)
        assert history.stable_fraction(0) == 1
    else:
        assert m.overlap_volumes is None and history.stable_fraction(0) is None


# --- one neuron's sign flipped ------------------------------------------------------------------------------

@pytest.mark.parametrize("widths, layer, unit, domain", [
    ([2, 6], 0, 2, SQUARE),            # one hidden layer: an arrangement of lines
    ([2, 5, 4], 1, 1, SQUARE),         # the last hidden layer: its zero set is the same bent line
    ([3, 4, 3], 1, 1, CUBE),           # in 3-D, through the linear programs
])
def test_a_flipped_neuron_permutes_the_patterns_and_keeps_the_geometry(widths, layer, unit, domain):
    network = he_normal(widths, seed=7)
    flipped = _flip(network, layer, unit)
    history = checkpoint_history([network, flipped], domain, boundary=False)
    before, after = (r.regions for r in history.records)
    m = history.matchings[0]
    neuron = sum(network.layers[k].width for k in range(layer)) + unit
    index_after = {r.pattern: j for j, r in enumerate(after.regions)}

    def toggled(pattern):
        return pattern[:neuron] + (1 - pattern[neuron],) + pattern[neuron + 1:]

    # by overlap: each region meets only itself, whose pattern has the neuron toggled
    assert len(before) == len(after)
    assert m.overlaps == tuple((index_after[toggled(r.pattern)],) for r in before.regions)
    assert m.one_to_one == len(before) and m.split == m.merged == 0
    # by pattern: a pattern persists exactly when its mirror across the neuron's zero set is a region too, i.e.
    # on both sides of a facet where that neuron alone switches
    facets = sum(1 for _, _, neurons in before.adjacency if neurons == frozenset({neuron}))
    assert m.persisted == 2 * facets > 0
    assert m.persisted_overlapping == 0 and history.stable_fraction(0) == 0
    # the region after with pattern p is where the region before with the toggled pattern was
    index_before = {r.pattern: i for i, r in enumerate(before.regions)}
    for i, j in enumerate(m.by_pattern):
        if j is not None:
            pattern = before.regions[i].pattern
            assert after.regions[j].pattern == pattern
            assert after.regions[j].polytope.equals(before.regions[index_before[toggled(pattern)]].polytope)


def test_the_four_quadrants_with_one_axis_flipped():
    axes = pr.Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu")])
    flipped = _flip(axes, 0, 0)
    m = checkpoint_history([axes, flipped], SQUARE).matchings[0]
    # patterns (0,0), (0,1), (1,0), (1,1) sort as the quadrants x<0,y<0 / x<0,y>0 / x>0,y<0 / x>0,y>0; after the
    # flip the same patterns sit in the mirrored quadrants
    assert m.by_pattern == (0, 1, 2, 3)
    assert m.overlaps == ((2,), (3,), (0,), (1,))
    assert m.overlap_volumes == ((1,), (1,), (1,), (1,))
    assert (m.persisted, m.persisted_overlapping, m.stable_volume) == (4, 0, 0)


# --- the sawtooth family ------------------------------------------------------------------------------------

def test_sawtooth_counts_are_powers_of_two_and_each_piece_splits_in_two():
    depths = [1, 2, 3, 4, 5]
    history = checkpoint_history([pr.sawtooth(n) for n in depths], pr.box([0], [1]))
    assert history.series("activation_regions") == [2 ** n for n in depths]
    assert history.series("linear_regions") == [2 ** n for n in depths]
    assert history.series("boundary_volume") == [2 ** n - 1 for n in depths]  # breakpoints inside (0, 1)
    for n, m in zip(depths, history.matchings):
        assert m.by_pattern is None and m.persisted is None  # 2n neurons, then 2n + 2
        assert m.split == 2 ** n and m.merged == 0 and m.overlap_pairs == 2 ** (n + 1)
        assert all(volumes == (Fraction(1, 2 ** (n + 1)),) * 2 for volumes in m.overlap_volumes)
        assert m.reverse_overlaps == tuple((i,) for i in _halves(m))
    assert history.series("split") == [2 ** n for n in depths[:-1]]


def _halves(m):
    """For each region after, the one region before that holds it."""
    owner = {}
    for i, near in enumerate(m.overlaps):
        for j in near:
            owner[j] = i
    return [owner[j] for j in range(m.after_count)]


# --- overlaps tile each region exactly ----------------------------------------------------------------------

@settings(max_examples=12, deadline=None)
@given(seed_a=st.integers(0, 10 ** 6), seed_b=st.integers(0, 10 ** 6), width=st.integers(2, 6))
def test_overlap_volumes_add_up_to_each_region_exactly_in_2d(seed_a, seed_b, width):
    a = he_normal([2, width, 3], seed=seed_a)
    b = pytorch_default([2, 3, width], seed=seed_b, output_dim=2)
    before, after = (pr.enumerate_regions(net, SQUARE) for net in (a, b))
    m = match_regions(before, after)
    assert [sum(v, Fraction(0)) for v in m.overlap_volumes] == [r.polytope.volume() for r in before.regions]
    into = [Fraction(0)] * len(after)
    for near, volumes in zip(m.overlaps, m.overlap_volumes):
        for j, v in zip(near, volumes):
            assert v > 0
            into[j] += v
    assert into == [r.polytope.volume() for r in after.regions]
    assert sum(into) == 4


@pytest.mark.parametrize("widths, domain, seeds", [
    ([2, 5, 4], SQUARE, (0, 1)),
    ([2, 4, 3], pr.polytope_domain([[1, 0], [0, 1], [-1, -1]], [1, 1, 1]), (2, 3)),
    ([3, 4, 3], CUBE, (4, 5)),
])
def test_overlaps_are_the_regions_of_the_two_networks_side_by_side(widths, domain, seeds):
    a, b = (he_normal(widths, seed=s) for s in seeds)
    before, after = (pr.enumerate_regions(net, domain) for net in (a, b))
    m = match_regions(before, after)
    overlay = pr.enumerate_regions(_overlay(a, b), domain)
    index_a = {r.pattern: i for i, r in enumerate(before.regions)}
    index_b = {r.pattern: j for j, r in enumerate(after.regions)}
    expected: dict[tuple[int, int], Fraction] = {}
    for region in overlay.regions:
        left, right = _split_patterns(a, b, region.pattern)
        expected[index_a[left], index_b[right]] = region.polytope.volume()
    found = {(i, j): v for i, (near, volumes) in enumerate(zip(m.overlaps, m.overlap_volumes))
             for j, v in zip(near, volumes)}
    assert found == expected


# --- the project's training loop ----------------------------------------------------------------------------

def test_training_checkpoints_every_k_steps_count_as_each_network_alone(tmp_path):
    data = moons(96, seed=0)
    snapshots = train_with_checkpoints(data, [6, 6], epochs=1.5, every=4, lr=0.02, batch_size=16, seed=1,
                                       directory=tmp_path)
    assert [s.step for s in snapshots] == [0, 4, 8, 9]  # 6 steps an epoch: 9 in all, the last one kept too
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"step_{s:06d}.json" for s in (0, 4, 8, 9)]
    history = checkpoint_history(snapshots, square_domain(), points=data.X[:5], radius="1/20")
    for snapshot, record in zip(snapshots, history.records):
        alone = pr.enumerate_regions(snapshot.network, square_domain()).summary()
        assert (record.activation_regions, record.linear_regions) == (alone["activation_regions"],
                                                                       alone["linear_regions"])
        assert record.label == f"step {snapshot.step}" and record.step == snapshot.step
        local = pr.local_complexity(snapshot.network, data.X[:5], "1/20")
        assert record.local.activation_regions.tolist() == local.activation_regions.tolist()
    assert snapshots[0].network != snapshots[1].network
    files = sorted(str(p) for p in tmp_path.iterdir())
    assert load_checkpoints(files) == [s.network for s in snapshots]
    from_files = checkpoint_history(files, square_domain(), boundary=False)
    assert from_files.series("activation_regions") == history.series("activation_regions")
    assert from_files.series("stable_fraction") == history.series("stable_fraction")


def test_train_with_checkpoints_checks_its_arguments(tmp_path):
    data = moons(32, seed=0)
    with pytest.raises(InvalidInputError, match="every: expected"):
        train_with_checkpoints(data, [4], epochs=1, every=0)
    with pytest.raises(InvalidInputError, match="directory: expected an existing folder"):
        train_with_checkpoints(data, [4], epochs=1, every=1, directory=tmp_path / "missing")


# --- results, series and errors -----------------------------------------------------------------------------

def test_series_and_summary_agree_with_the_records():
    nets = [he_normal([2, 5, 5], seed=s) for s in (0, 1, 2)]
    history = checkpoint_history(nets, SQUARE, points=[[0, 0], ["1/2", "-1/3"]], radius="1/4", norm="2")
    summary = json.loads(json.dumps(history.summary()))
    assert [c["activation_regions"] for c in summary["checkpoints"]] == history.series("activation_regions")
    assert [t["split"] for t in summary["transitions"]] == history.series("split")
    assert [t["from"] for t in summary["transitions"]] == [0, 1]
    for k, t in enumerate(summary["transitions"]):
        assert Fraction(t["stable_fraction_exact"]) == history.stable_fraction(k)
    for quantity in CHECKPOINT_QUANTITIES:
        assert len(history.series(quantity)) in (2, 3)
    assert summary["exact"] is True
    with pytest.raises(InvalidInputError, match="quantity: expected one of"):
        history.series("regions")  # type: ignore[arg-type]


@pytest.mark.parametrize("call, message", [
    (lambda: checkpoint_history([], SQUARE), "checkpoints: expected a non-empty list"),
    (lambda: checkpoint_history([pr.sawtooth(1), 3], pr.box([0], [1])), r"checkpoints\[1\]: expected a Network"),
    (lambda: checkpoint_history([pr.sawtooth(1)], SQUARE), "checkpoint 0: expected a network with 2 inputs"),
    (lambda: checkpoint_history([pr.sawtooth(1)], pr.box([0], [1]), points=[[0]]), "points, radius: expected both"),
    (lambda: checkpoint_history([pr.sawtooth(1)], pr.space(1), boundary=True), "boundary: expected a bounded"),
    (lambda: checkpoint_history([pr.sawtooth(1)], pr.box([0], [1]), labels=["a", "b"]), "labels: expected 1"),
    (lambda: match_regions(pr.enumerate_regions(pr.sawtooth(1), pr.box([0], [1])),
                           pr.enumerate_regions(pr.sawtooth(1), pr.box([0], [2]))), "same domain"),
    (lambda: match_regions("a", "b"), "before: expected a RegionComplex"),
])
def test_bad_arguments_are_named(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


def test_results_are_frozen():
    history = checkpoint_history([pr.sawtooth(1), pr.sawtooth(1)], pr.box([0], [1]))
    with pytest.raises(AttributeError):
        history.records = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        history.matchings[0].overlaps = ()  # type: ignore[misc]


# --- checkpoint files ---------------------------------------------------------------------------------------

def _torch_model(torch, seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.ReLU(), torch.nn.Linear(4, 3), torch.nn.ReLU(),
                               torch.nn.Linear(3, 1))


def test_state_dicts_load_into_the_first_checkpoints_architecture(tmp_path):
    torch = pytest.importorskip("torch")
    models = [_torch_model(torch, s) for s in (0, 1)]
    first = tmp_path / "first.json"
    pr.save_network(pr.network_from_torch(models[0]), first)
    torch.save(models[1].state_dict(), tmp_path / "second.pt")
    torch.save({"epoch": 3, "model_state_dict": models[1].state_dict()}, tmp_path / "nested.pth")
    expected = pr.network_from_torch(models[1])
    assert load_checkpoint(tmp_path / "second.pt") == expected  # ReLU layers and a linear last one
    assert load_checkpoints([first, tmp_path / "second.pt", tmp_path / "nested.pth"])[1:] == [expected, expected]
    assert load_checkpoint(tmp_path / "second.pt", template=models[0]) == expected
    leaky = pr.network_from_arrays([[[1, 0], [0, 1]]], [[0, 0]], [pr.leaky_relu("1/10")])
    small = torch.nn.Linear(2, 2)
    torch.save(small.state_dict(), tmp_path / "small.pt")
    assert load_checkpoint(tmp_path / "small.pt", template=leaky).layers[0].activation == pr.leaky_relu("1/10")


@pytest.mark.parametrize("write, template, message", [
    (lambda torch, path: torch.save(torch.nn.Linear(3, 4).state_dict(), path), "network",
     r"bad.pt: expected 3 layers .* got 1"),
    (lambda torch, path: torch.save({"0.weight": torch.zeros(4, 2), "0.bias": torch.zeros(4),
                                     "2.weight": torch.zeros(3, 5), "2.bias": torch.zeros(3),
                                     "4.weight": torch.zeros(1, 3), "4.bias": torch.zeros(1)}, path),
     "network", r"bad.pt: 2.weight: expected layer 1 of the first checkpoint, a weight of shape \(3, 4\)"),
    (lambda torch, path: torch.save({"w": torch.tensor([[float("nan")]]), "b": torch.zeros(1)}, path), None,
     "bad.pt: w: expected finite entries"),
    (lambda torch, path: torch.save([1, 2], path), None, "bad.pt: expected a PyTorch state dict"),
    (lambda torch, path: path.write_bytes(b"not a torch file"), None, "bad.pt: expected a PyTorch state dict"),
    (lambda torch, path: torch.save(torch.nn.Linear(3, 4).state_dict(), path), "module",
     "bad.pt: expected the parameters of the template module"),
])
def test_bad_state_dicts_name_the_file_and_the_key(tmp_path, write, template, message):
    torch = pytest.importorskip("torch")
    model = _torch_model(torch, 0)
    path = tmp_path / "bad.pt"
    write(torch, path)
    shape = {"network": pr.network_from_torch(model), "module": model, None: None}[template]
    with pytest.raises(InvalidInputError, match=message):
        load_checkpoint(path, template=shape)


# --- the command line ---------------------------------------------------------------------------------------

def _sawtooth_files(tmp_path, depths=(1, 2, 3)):
    files = []
    for n in depths:
        path = tmp_path / f"saw{n}.json"
        pr.save_network(pr.sawtooth(n), path)
        files.append(str(path))
    return files


def test_command_line_json(tmp_path, capsys):
    files = _sawtooth_files(tmp_path)
    points = tmp_path / "points.json"
    points.write_text('[["1/2"], ["3/16"]]')
    assert main(["checkpoints", *files, "--box", "0,1", "--points", str(points), "--radius", "1/8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["label"] for c in out["checkpoints"]] == files
    assert [c["activation_regions"] for c in out["checkpoints"]] == [2, 4, 8]
    assert [c["boundary_volumes"] for c in out["checkpoints"]] == [[1.0], [3.0], [7.0]]
    assert out["checkpoints"][2]["local"] == {"points": 2, "activation_regions": [2, 3], "linear_regions": [2, 3],
                                              "neurons_crossing": [1, 2], "exact": True}
    assert [(t["split"], t["merged"], t["persisted"], t["stable_fraction"]) for t in out["transitions"]] == \
        [(2, 0, None, None), (4, 0, None, None)]
    assert (out["input_dim"], out["domain_dim"], out["exact"], out["plot"]) == (1, 1, True, None)
    assert main(["checkpoints", files[0], files[0], "--box", "0,1"]) == 0
    text = capsys.readouterr().out
    assert "2 patterns persisted (0 died, 0 born)" in text and "same pattern on 1 of the domain" in text


def test_command_line_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    files = _sawtooth_files(tmp_path)
    picture = tmp_path / "history.png"
    assert main(["checkpoints", *files, "--box", "0,1", "--plot", str(picture), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["plot"] == str(picture)
    assert picture.read_bytes().startswith(b"\x89PNG")
    from polyregions.plotting import plot_checkpoint_history

    figure = plot_checkpoint_history(checkpoint_history([pr.sawtooth(1), pr.sawtooth(2)], pr.box([0], [1]),
                                                        points=[[0]], radius=1))
    assert [ax.get_title() for ax in figure.axes] == ["regions", "boundary B_N", "local complexity at the data",
                                                      "matched between checkpoints"]


def test_command_line_state_dicts_after_a_network_file(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    models = [_torch_model(torch, s) for s in (0, 1)]
    first = tmp_path / "first.json"
    pr.save_network(pr.network_from_torch(models[0]), first)
    torch.save(models[1].state_dict(), tmp_path / "second.pt")
    assert main(["checkpoints", str(first), str(tmp_path / "second.pt"), "--box", "-1,1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    alone = pr.enumerate_regions(pr.network_from_torch(models[1]), SQUARE)
    assert out["checkpoints"][1]["activation_regions"] == len(alone)


@pytest.mark.parametrize("args, message", [
    (["MISSING", "--box", "0,1"], "polyregions: error: {tmp}/missing.json: cannot read the file"),
    (["A", "--box", "0,1", "--points", "P"], "polyregions: error: --points, --radius: expected both"),
    (["A", "--box", "0,1", "--points", "P", "--radius", "0"], "polyregions: error: --radius: expected a positive"),
    (["A", "TWO", "--box", "0,1"], "polyregions: error: {tmp}/two.json: expected a network with 1 inputs"),
    (["A", "--box", "0,1", "--plot", "{tmp}/out.txt"], "polyregions: error: --plot: expected a file name ending"),
    (["A", "--box", "0"], "polyregions: error: --box: expected LO,HI"),
    (["A", "--box", "0,1", "--points", "BADP", "--radius", "1"],
     "polyregions: error: {tmp}/badp.json: points[0]: expected 1 numbers, got 2"),
])
def test_command_line_errors_are_one_line(tmp_path, capsys, args, message):
    pr.save_network(pr.sawtooth(1), tmp_path / "a.json")
    pr.save_network(he_normal([2, 3], seed=0), tmp_path / "two.json")
    (tmp_path / "p.json").write_text("[[0]]")
    (tmp_path / "badp.json").write_text("[[0, 1]]")
    names = {"A": "a.json", "TWO": "two.json", "MISSING": "missing.json", "P": "p.json", "BADP": "badp.json"}
    argv = [str(tmp_path / names[a]) if a in names else a.format(tmp=tmp_path) for a in args]
    with pytest.raises(SystemExit) as stop:
        main(["checkpoints", *argv])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(message.format(tmp=tmp_path)), err


def test_unbounded_domains_match_without_volumes():
    nets = [he_normal([2, 3, 3], seed=s) for s in (0, 1)]
    history = checkpoint_history(nets, pr.space(2))
    m = history.matchings[0]
    assert m.overlap_volumes is None and history.records[0].boundary is None
    overlay = pr.enumerate_regions(_overlay(*nets), pr.space(2))
    assert m.overlap_pairs == len(overlay)
    assert np.isnan(np.array(history.series("density"), dtype=float)).all()


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("content", [
    "{", "[]", '{"format": "polyregions.network/1"}',
    '{"format": "polyregions.network/1", "input_dim": 1, "layers": [{"weight": [["1/0"]], "bias": [0], '
    '"activation": "relu"}]}',
    '{"format": "polyregions.network/1", "input_dim": 1, "layers": [{"weight": [[1]], "bias": [0], '
    '"activation": "swish"}]}',
])
def test_command_line_bad_network_files_name_the_file(tmp_path, capsys, content, position):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    pr.save_network(pr.sawtooth(1), good)
    bad.write_text(content)
    files = [str(good), str(bad)] if position else [str(bad), str(good)]
    with pytest.raises(SystemExit) as stop:
        main(["checkpoints", *files, "--box", "0,1", "--json"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"polyregions: error: {bad}"), err


@pytest.mark.parametrize("content, field", [
    ('{"type": "box", "lower": [1], "upper": [0]}', "upper"),
    ('{"type": "cube"}', "type"),
    ('{"type": "box", "lower": [0, 0], "upper": [1, 1]}', "lower"),
])
def test_command_line_bad_domain_files_name_the_field(tmp_path, capsys, content, field):
    network, domain = tmp_path / "net.json", tmp_path / "dom.json"
    pr.save_network(pr.sawtooth(1), network)
    domain.write_text(content)
    with pytest.raises(SystemExit) as stop:
        main(["checkpoints", str(network), str(network), "--domain", str(domain)])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"polyregions: error: {domain}") and field in err[0], err
