"""What reading a model costs, format by format: ``python -m benchmarks.bench_importers``.

One small convolutional model with a residual block and max pooling (a custom ``nn.Module``) is saved every way
a researcher saves one that loads without running code: a ``.pt2`` program, a traced TorchScript file, and ONNX
from both of torch's exporters. Each file is converted by the whole command ``polyregions network FILE -o OUT
--json`` in its own process, beside a process that only imports what the format's loader needs (torch; torch and its
``torch.export`` loader, which alone imports ``torch._dynamo``; onnx): the difference is what polyregions' reading
costs, the frameworks' own imports excluded. ``--repeat N`` takes the median of N runs of each command.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import warnings
from pathlib import Path

from benchmarks._processes import run_json


def cases():
    return []


def _model():
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(1, 4, 3, padding=1)
            self.inner = nn.Conv2d(4, 4, 3, padding=1)
            self.pool = nn.MaxPool2d(2)
            self.head = nn.Linear(4 * 4 * 4, 2)

        def forward(self, x):
            y = torch.relu(self.stem(x))
            y = torch.relu(y + self.inner(y))
            return self.head(torch.flatten(self.pool(y), 1))

    torch.manual_seed(0)
    return Block().eval(), torch.zeros(1, 1, 8, 8)


def _save_all(folder: Path) -> dict[str, Path]:
    import torch

    model, x = _model()
    files = {"pt2 (torch.export.save)": folder / "model.pt2", "TorchScript (traced)": folder / "traced.pt",
             "ONNX (dynamo exporter)": folder / "dynamo.onnx", "ONNX (legacy exporter)": folder / "legacy.onnx"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.export.save(torch.export.export(model, (x,)), files["pt2 (torch.export.save)"])
        torch.jit.trace(model, x).save(files["TorchScript (traced)"])
        torch.onnx.export(model, (x,), files["ONNX (dynamo exporter)"])
        torch.onnx.export(model, (x,), files["ONNX (legacy exporter)"], dynamo=False)
    return files


def _median(command: list[str], repeat: int) -> tuple[float, dict]:
    runs = [run_json(command, timeout=600) for _ in range(repeat)]
    return statistics.median(r.wall for r in runs), runs[-1].output


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_importers", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command (the median is reported)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        files = _save_all(folder)
        imports = {"pt2": "torch, torch._export.serde.serialize", "TorchScript": "torch", "ONNX": "onnx"}
        baseline = {kind: _median([sys.executable, "-c", f"import json, {modules}; print(json.dumps({{}}))"],
                                  args.repeat)[0] for kind, modules in imports.items()}
        print(f"{'file':<26} {'command s':>10} {'imports s':>10} {'reading s':>10}  network")
        for label, path in files.items():
            command = [sys.executable, "-m", "polyregions", "network", str(path), "-o", str(folder / "out.json"),
                       "--json"] + (["--input-shape", "1,8,8"] if "TorchScript" in label else [])
            seconds, output = _median(command, args.repeat)
            cost = baseline[label.split()[0]]
            print(f"{label:<26} {seconds:>10.2f} {cost:>10.2f} {seconds - cost:>10.2f}  "
                  f"{output['format']}, {output['neurons']} neurons")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
