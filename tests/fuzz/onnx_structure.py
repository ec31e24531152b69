"""ONNX files malformed in their structure, built with ``onnx.helper``: nodes with missing inputs or outputs,
attributes missing or not finite, initializers whose data do not fit their dims (or whose dims declare 10^10
entries with no data), and node attributes out of range. Each is refused by ``polyregions regions FILE --box
-1,1`` (exit 2, one line naming the file and the node or field) and by ``load_network`` (an
``InvalidInputError`` naming the same).

The models are built at import when onnx is installed (:func:`onnx_models`); without onnx the family is empty.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np

from fuzz.corpus import Case

__all__ = ["onnx_models", "ONNX_STRUCTURE_CASES", "ONNX_STRUCTURE_LIBRARY_CASES"]

_FILE = "bad.onnx"


def _models() -> Iterator[tuple[str, Callable[[], Any], tuple[str, ...]]]:
    """(label, a builder of the model, what the message must name besides the file)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    def tensor(name: str, array: Any) -> Any:
        return numpy_helper.from_array(np.asarray(array, dtype=np.float32), name)

    def model(nodes: list, initializers: list = (), width: int = 2, shape: list | None = None,
              output: str = "Y", opset: int = 17) -> Any:
        x = helper.make_tensor_value_info("X", TensorProto.FLOAT, shape or [1, width])
        y = helper.make_tensor_value_info(output, TensorProto.FLOAT, None)
        graph = helper.make_graph(nodes, "g", [x], [y], list(initializers))
        built = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        built.ir_version = 8
        return built

    def _floats(name: str, dims: list[int], values: list[float]) -> Any:
        made = TensorProto()
        made.name, made.data_type = name, TensorProto.FLOAT
        made.dims.extend(dims)
        made.float_data.extend(values)
        return made

    W, B = tensor("W", [[1, 0], [0, 1], [1, 1]]), tensor("B", [0, 0, -0.5])
    gemm = helper.make_node("Gemm", ["X", "W", "B"], ["G"], name="gemm", transB=1)

    def image(nodes: list, initializers: list = (), output: str = "Y") -> Any:
        return model(nodes, initializers, shape=[1, 2, 4, 4], output=output)

    K = tensor("K", np.ones((2, 2, 2, 2)))  # Conv: 2 channels out, 2 in, 2 x 2 kernel

    def conv(label: str, **attrs: Any) -> Any:
        return image([helper.make_node("Conv", ["X", "K"], ["C"], name=label, **attrs),
                      helper.make_node("Relu", ["C"], ["Y"], name="relu")], [K])

    # nodes with missing inputs or outputs
    yield "Relu without inputs", lambda: model([gemm, helper.make_node("Relu", [], ["Y"], name="r")], [W, B]), \
        ("'r'", "Relu")
    yield "Relu without outputs", lambda: model([gemm, helper.make_node("Relu", ["G"], [], name="r")], [W, B]), \
        ("'r'", "Relu")
    yield "Relu with an empty input name", lambda: model([gemm, helper.make_node("Relu", [""], ["Y"], name="r")],
                                                         [W, B]), ("'r'", "Relu")
    yield "Gemm without inputs", lambda: model([helper.make_node("Gemm", [], ["G"], name="gm"),
                                                helper.make_node("Relu", ["G"], ["Y"])]), ("'gm'", "Gemm")
    yield "Gemm without B", lambda: model([helper.make_node("Gemm", ["X"], ["G"], name="gm"),
                                           helper.make_node("Relu", ["G"], ["Y"])]), ("'gm'", "Gemm")
    yield "Gemm without A", lambda: model([helper.make_node("Gemm", ["", "W"], ["G"], name="gm", transB=1),
                                           helper.make_node("Relu", ["G"], ["Y"])], [W]), ("'gm'", "Gemm")
    yield "Gemm without outputs", lambda: model([helper.make_node("Gemm", ["X", "W", "B"], [], name="gm",
                                                                  transB=1),
                                                 helper.make_node("Relu", ["G"], ["Y"], name="r")], [W, B]), \
        ("'gm'", "Gemm")
    shape = numpy_helper.from_array(np.array([1, 3], dtype=np.int64), "S")
    yield "Reshape without inputs", lambda: model([gemm, helper.make_node("Reshape", [], ["R"], name="rs"),
                                                   helper.make_node("Relu", ["R"], ["Y"])], [W, B]), \
        ("'rs'", "Reshape")
    yield "Reshape without a shape", lambda: model([gemm, helper.make_node("Reshape", ["G"], ["R"], name="rs"),
                                                    helper.make_node("Relu", ["R"], ["Y"])], [W, B]), \
        ("'rs'", "Reshape")
    yield "Reshape without outputs", lambda: model([gemm, helper.make_node("Reshape", ["G", "S"], [], name="rs"),
                                                    helper.make_node("Relu", ["G"], ["Y"])], [W, B, shape]), \
        ("'rs'", "Reshape")
    yield "Concat without inputs", lambda: model([gemm, helper.make_node("Concat", [], ["C"], name="cc", axis=1),
                                                  helper.make_node("Relu", ["C"], ["Y"])], [W, B]), \
        ("'cc'", "Concat")
    yield "Concat without outputs", lambda: model([gemm, helper.make_node("Concat", ["G", "G"], [], name="cc",
                                                                          axis=1),
                                                   helper.make_node("Relu", ["G"], ["Y"])], [W, B]), \
        ("'cc'", "Concat")
    yield "Concat without an axis", lambda: model([gemm, helper.make_node("Concat", ["G", "G"], ["C"], name="cc"),
                                                   helper.make_node("Relu", ["C"], ["Y"])], [W, B]), \
        ("'cc'", "Concat", "axis")
    stats = [tensor(name, [1, 1, 1]) for name in ("sc", "bi", "me", "va")]
    yield "BatchNormalization without inputs", lambda: model([gemm, helper.make_node(
        "BatchNormalization", [], ["N"], name="bn"), helper.make_node("Relu", ["N"], ["Y"])], [W, B]), \
        ("'bn'", "BatchNormalization")
    yield "BatchNormalization without its statistics", lambda: model([gemm, helper.make_node(
        "BatchNormalization", ["G", "sc"], ["N"], name="bn"), helper.make_node("Relu", ["N"], ["Y"])],
        [W, B, *stats]), ("'bn'", "BatchNormalization")
    yield "BatchNormalization without outputs", lambda: model([gemm, helper.make_node(
        "BatchNormalization", ["G", "sc", "bi", "me", "va"], [], name="bn"),
        helper.make_node("Relu", ["G"], ["Y"])], [W, B, *stats]), ("'bn'", "BatchNormalization")
    # attributes missing or not finite
    for label, attrs, field in (("alpha inf", {"alpha": float("inf")}, "alpha"),
                                ("alpha NaN", {"alpha": float("nan")}, "alpha"),
                                ("beta -inf", {"beta": float("-inf")}, "beta"),
                                ("beta NaN", {"beta": float("nan")}, "beta")):
        yield f"Gemm {label}", (lambda attrs=attrs: model([
            helper.make_node("Gemm", ["X", "W", "B"], ["G"], name="gm", transB=1, **attrs),
            helper.make_node("Relu", ["G"], ["Y"])], [W, B])), ("'gm'", field)
    for label, eps in (("inf", float("inf")), ("NaN", float("nan")), ("-inf", float("-inf"))):
        yield f"BatchNormalization epsilon {label}", (lambda eps=eps: model([gemm, helper.make_node(
            "BatchNormalization", ["G", "sc", "bi", "me", "va"], ["N"], name="bn", epsilon=eps),
            helper.make_node("Relu", ["N"], ["Y"])], [W, B, *stats])), ("'bn'", "epsilon")
    yield "MaxPool without kernel_shape", lambda: image([helper.make_node("MaxPool", ["X"], ["P"], name="mp"),
                                                         helper.make_node("Relu", ["P"], ["Y"])]), \
        ("'mp'", "kernel_shape")
    yield "AveragePool without kernel_shape", lambda: image([helper.make_node("AveragePool", ["X"], ["P"],
                                                                              name="ap"),
                                                             helper.make_node("Relu", ["P"], ["Y"])]), \
        ("'ap'", "kernel_shape")
    empty = tensor("E", np.zeros((0,)))
    yield "Clip with an empty min", lambda: model([gemm, helper.make_node("Clip", ["G", "E"], ["Y"], name="cl")],
                                                  [W, B, empty]), ("'cl'", "min")
    yield "Clip with an empty max", lambda: model([gemm, helper.make_node("Clip", ["G", "", "E"], ["Y"],
                                                                          name="cl")], [W, B, empty]), \
        ("'cl'", "max")
    yield "Clip with two-entry min", lambda: model([gemm, helper.make_node("Clip", ["G", "E2"], ["Y"], name="cl")],
                                                   [W, B, tensor("E2", [0, 1])]), ("'cl'", "min")
    # initializers whose data do not fit their dims
    def raw(name: str, dims: list[int], data: bytes, kind: int = TensorProto.FLOAT) -> Any:
        made = TensorProto()  # by hand: helper.make_tensor checks the size
        made.name, made.data_type, made.raw_data = name, kind, data
        made.dims.extend(dims)
        return made

    for label, dims, data in (("raw data shorter than its dims", [3, 2], b"\0" * 20),
                              ("raw data of one entry for 6", [3, 2], b"\0" * 4),
                              ("raw data longer than its dims", [3, 2], b"\0" * 28),
                              ("dims 10^5 x 10^5 and no data", [10 ** 5, 10 ** 5], b""),
                              ("dims 10^5 x 10^5 and 4 bytes", [10 ** 5, 10 ** 5], b"\0" * 4),
                              ("dims 2^31 x 2^31 and no data", [2 ** 31, 2 ** 31], b""),
                              ("a negative dim", [-3, 2], b"\0" * 24)):
        yield f"initializer {label}", (lambda dims=dims, data=data: model([
            helper.make_node("Gemm", ["X", "W", "B"], ["G"], name="gm", transB=1),
            helper.make_node("Relu", ["G"], ["Y"])], [raw("W", dims, data), B])), ("'W'",)
    yield "initializer float_data shorter than its dims", lambda: model([gemm, helper.make_node(
        "Relu", ["G"], ["Y"])], [_floats("W", [3, 2], [1.0, 2.0]), B]), ("'W'",)
    yield "initializer dims 10^5 x 10^5 of int64 with no data", lambda: model([
        gemm, helper.make_node("Reshape", ["G", "S"], ["R"]), helper.make_node("Relu", ["R"], ["Y"])],
        [W, B, raw("S", [10 ** 5, 10 ** 5], b"", TensorProto.INT64)]), ("'S'",)
    # refused (they were read, exit 0)
    shape_f = tensor("SF", [1.0, 3.0])
    yield "Reshape to a float shape", lambda: model([gemm, helper.make_node("Reshape", ["G", "SF"], ["R"],
                                                                            name="rs"),
                                                     helper.make_node("Relu", ["R"], ["Y"])], [W, B, shape_f]), \
        ("'rs'", "shape")
    yield "Reshape to a fractional shape", lambda: model([gemm, helper.make_node("Reshape", ["G", "SF"], ["R"],
                                                                                 name="rs"),
                                                          helper.make_node("Relu", ["R"], ["Y"])],
                                                         [W, B, tensor("SF", [1.5, 2.0])]), ("'rs'", "shape")
    true = numpy_helper.from_array(np.array(True), "T")
    yield "Dropout in training mode", lambda: model([gemm, helper.make_node("Dropout", ["G", "", "T"], ["D"],
                                                                            name="do"),
                                                     helper.make_node("Relu", ["D"], ["Y"])], [W, B, true]), \
        ("'do'", "training_mode")
    yield "Dropout in training mode with ratio 0.5", lambda: model([gemm, helper.make_node(
        "Dropout", ["G", "RT", "T"], ["D"], name="do"), helper.make_node("Relu", ["D"], ["Y"])],
        [W, B, true, tensor("RT", 0.5)]), ("'do'", "training_mode")
    yield "Dropout in training mode with ratio 0", lambda: model([gemm, helper.make_node(
        "Dropout", ["G", "RT", "T"], ["D"], name="do"), helper.make_node("Relu", ["D"], ["Y"])],
        [W, B, true, tensor("RT", 0.0)]), ("'do'", "training_mode")
    yield "Dropout is_test 0 (opset 6)", lambda: model([gemm, helper.make_node(
        "Dropout", ["G"], ["D"], name="do", is_test=0), helper.make_node("Relu", ["D"], ["Y"])], [W, B], opset=6), \
        ("'do'", "is_test")
    # node attributes out of range
    yield "Conv stride 0", lambda: conv("cv", strides=[0, 1]), ("'cv'", "stride")
    yield "Conv dilation 0", lambda: conv("cv", dilations=[1, 0]), ("'cv'", "dilation")
    yield "Conv negative pads", lambda: conv("cv", pads=[-1, 0, 0, 0]), ("'cv'", "pad")
    yield "Conv groups 3 of 2 channels", lambda: conv("cv", group=3), ("'cv'", "group")
    yield "Conv group 0", lambda: conv("cv", group=0), ("'cv'", "group")
    yield "Conv kernel 0", lambda: image([helper.make_node("Conv", ["X", "K0"], ["C"], name="cv"),
                                          helper.make_node("Relu", ["C"], ["Y"])],
                                         [tensor("K0", np.ones((2, 2, 0, 2)))]), ("'cv'",)
    yield "Conv short bias", lambda: image([helper.make_node("Conv", ["X", "K", "CB"], ["C"], name="cv"),
                                            helper.make_node("Relu", ["C"], ["Y"])], [K, tensor("CB", [1])]), \
        ("'cv'", "bias")
    yield "MaxPool stride 0", lambda: image([helper.make_node("MaxPool", ["X"], ["P"], name="mp",
                                                              kernel_shape=[2, 2], strides=[0, 0]),
                                             helper.make_node("Relu", ["P"], ["Y"])]), ("'mp'", "stride")
    yield "MaxPool kernel 0", lambda: image([helper.make_node("MaxPool", ["X"], ["P"], name="mp",
                                                              kernel_shape=[0, 2]),
                                             helper.make_node("Relu", ["P"], ["Y"])]), ("'mp'", "kernel")
    yield "MaxPool negative pads", lambda: image([helper.make_node("MaxPool", ["X"], ["P"], name="mp",
                                                                   kernel_shape=[2, 2], pads=[-1, -1, -1, -1]),
                                                  helper.make_node("Relu", ["P"], ["Y"])]), ("'mp'", "padding")
    yield "AveragePool kernel 0", lambda: image([helper.make_node("AveragePool", ["X"], ["P"], name="ap",
                                                                  kernel_shape=[2, 0]),
                                                 helper.make_node("Relu", ["P"], ["Y"])]), ("'ap'", "kernel")
    yield "duplicate output names", lambda: model([gemm, helper.make_node("Relu", ["G"], ["G"], name="r2"),
                                                   helper.make_node("Relu", ["G"], ["Y"])], [W, B]), ("'r2'", "G")
    yield "duplicate outputs of one node", lambda: model([gemm, helper.make_node(
        "Dropout", ["G"], ["D", "D"], name="do"), helper.make_node("Relu", ["D"], ["Y"])], [W, B]), ("'do'", "D")
    yield "a node's output named as the input", lambda: model([gemm, helper.make_node("Relu", ["G"], ["X"],
                                                                                      name="rx"),
                                                               helper.make_node("Relu", ["X"], ["Y"])], [W, B]), \
        ("'rx'", "X")
    yield "a node's output named as an initializer", lambda: model([gemm, helper.make_node(
        "Relu", ["G"], ["W"], name="rw"), helper.make_node("Relu", ["W"], ["Y"])], [W, B]), ("'rw'", "W")
    del onnx


def onnx_models() -> list[tuple[str, bytes, tuple[str, ...]]]:
    """(label, the model's bytes, what an error must name besides the file); empty without onnx."""
    try:
        import onnx  # noqa: F401
    except ImportError:
        return []
    return [(label, build().SerializeToString(), names) for label, build, names in _models()]


_MODELS = onnx_models()

#: ``regions FILE --box -1,1`` of each malformed model: exit 2, one line naming the file and the node or field.
ONNX_STRUCTURE_CASES: list[Case] = [
    Case(f"onnx structure: {label}", ("regions", _FILE, "--box", "-1,1"), ((_FILE, content),), (_FILE, *names),
         heavy="10^5" in label, tags=("onnx structure",))
    for label, content, names in _MODELS]


def _load(content: bytes) -> Callable[[], Any]:
    def call() -> Any:
        import polyregions as pr

        with open(_FILE, "wb") as handle:
            handle.write(content)
        return pr.load_network(_FILE)
    return call


#: ``load_network`` of each: (name, call, what the message must name), as :data:`fuzz.library.LIBRARY_CASES`.
ONNX_STRUCTURE_LIBRARY_CASES: list[tuple[str, Callable[[], Any], tuple[str, ...]]] = [
    (f"load_network of an onnx {label}", _load(content), (_FILE, *names)) for label, content, names in _MODELS]
