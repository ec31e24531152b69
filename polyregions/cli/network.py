"""``polyregions network (MODEL | --widths N0,N1,... --seed S) -o net.json``: write a network file.

Converts any network input polyregions reads (ONNX, ``.pt2``, TorchScript, ``.npz``, network files) into the
``polyregions.network/1`` file of a layered network, or ``polyregions.network/2`` for a graph, every number an
exact string; or draws a seeded random network. ``-o -`` writes the file to standard output.
"""

from __future__ import annotations

import json

from polyregions.cli._options import (
    NETWORK_HELP,
    add_json_option,
    add_progress_options,
    add_trust_pickle_option,
    integer_at_least,
    integers,
)
from polyregions.cli._options import widths as read_widths

__all__ = ["add_parser", "run"]

_INITS = ("he_normal", "pytorch_default")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "network", help="write a network file: convert a model, or draw a seeded random network",
        description="Write a polyregions network file: MODEL converted (a layered network becomes a "
                    "polyregions.network/1 file, any other a polyregions.network/2 graph), or, with --widths, a "
                    "random network drawn from a seed. Every number is written exactly.")
    parser.add_argument("model", metavar="MODEL", nargs="?", help=NETWORK_HELP + "; or none, with --widths")
    add_trust_pickle_option(parser)
    parser.add_argument("--input-shape", metavar="C,H,W",
                        help="one input's shape without the batch axis, for a TorchScript file that does not "
                             "record it")
    parser.add_argument("--widths", metavar="N0,N1,...",
                        help="draw a random network instead: the input dimension and the hidden widths, e.g. 2,16,16")
    parser.add_argument("--init", default="he_normal", choices=_INITS,
                        help="the random network's initialisation: he_normal (the default: He weights, biases of "
                             "standard deviation 1e-3, as in Hanin & Rolnick) or pytorch_default (nn.Linear's "
                             "weights and biases, uniform in +-1/sqrt(fan_in))")
    parser.add_argument("--seed", type=integer_at_least(0), default=0, metavar="S",
                        help="the seed of the random network (default 0)")
    parser.add_argument("--output-dim", type=integer_at_least(1), default=1, metavar="K",
                        help="the random network's number of linear outputs (default 1)")
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the network file to write (- for standard output)")
    add_json_option(parser)
    add_progress_options(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    from polyregions._support.atomic import atomic_write_text, check_output
    from polyregions.errors import InvalidInputError
    from polyregions.networks.io import network_document

    if (args.model is None) == (args.widths is None):
        raise InvalidInputError("MODEL: expected a model to convert or --widths for a random network, got "
                                + ("both" if args.model is not None else "neither"))
    check_output(args.output, what="--output")
    network = _read(args) if args.model is not None else _draw(args)
    document = network_document(network)
    atomic_write_text(args.output, json.dumps(document) + "\n")
    summary = {"output": args.output, "format": document["format"], "input_dim": network.input_dim,
               "output_dim": network.output_dim, "neurons": network.num_neurons}
    if args.json:
        print(json.dumps(summary))  # on standard error when the file itself goes to standard output (-o -)
    else:
        counts = ", ".join(f"{summary[key]} {word}{'s' if summary[key] != 1 else ''}" for key, word in
                           (("input_dim", "input"), ("neurons", "neuron"), ("output_dim", "output")))
        print(f"{args.output}: {summary['format']}, {counts}")
    return 0


def _read(args):
    from polyregions.errors import InvalidInputError
    from polyregions.networks.io import load_network

    if args.input_shape is None:
        return load_network(args.model, trust_pickle=args.trust_pickle)
    if not args.model.lower().endswith((".pt", ".pth")):
        raise InvalidInputError(f"--input-shape: expected a TorchScript .pt file to read with it, got {args.model}")
    from polyregions.networks.importers.torch_files import load_torch_file

    shape = integers(args.input_shape, what="--input-shape")
    if any(v < 1 for v in shape):
        raise InvalidInputError(f"--input-shape: expected positive sizes such as 1,8,8, got {args.input_shape}")
    return load_torch_file(args.model, trust_pickle=args.trust_pickle, input_shape=shape)


def _draw(args):
    from polyregions.networks import initializers

    widths = read_widths(args.widths, output_dim=args.output_dim)
    return getattr(initializers, args.init)(widths, seed=args.seed, output_dim=args.output_dim)


