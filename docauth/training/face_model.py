"""dlib's face recognition ResNet as an ONNX graph: ``docauth build face-embedder``.

The network is dlib's ``dlib_face_recognition_resnet_model_v1`` (the ``anet_type`` of dlib's
``examples/dnn_face_recognition_ex.cpp``, weights from the ``face_recognition_models`` package). This module
reads dlib's own serialization of it and writes the same arithmetic as ONNX, so the encodings equal
``face_recognition.face_encodings``' (stored templates and the calibrated threshold stay valid), while the
convolutions run on a BLAS-backed engine instead of dlib's.

dlib's stream, as ``dlib/serialize.h``, ``dlib/dnn/core.h``, ``layers.h``, ``input.h`` and ``tensor.h`` write it:

* an integer is a control byte (low 4 bits: how many bytes follow, bit 7: negative) and that many bytes of the
  absolute value, little endian; a float is two such integers, mantissa then exponent (value = m * 2**e);
  a string is its length then its bytes; a bool is the character ``'1'`` or ``'0'``;
* a tensor (version 2) is num_samples, k, nr, nc, then the values as 4-byte little-endian IEEE floats;
* a network is written outermost first, but each layer writes its subnetwork before its own details, so the
  details come innermost first: ``add_loss_layer`` (version 1: the loss's details, then the subnetwork),
  ``add_layer`` (version 2: subnetwork, details, three bools, three tensors of training state), the
  ``add_layer`` over the input layer (version 3: the input layer, details, three bools, three tensors, the
  sample expansion factor), tag and skip layers (version 1, nothing but their subnetwork).

Tags and skips carry no name in the stream, so their places come from the network's definition
(:data:`ANET_LAYERS`), and the stream is checked against it layer by layer.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import click
import numpy as np

from docauth.config import default_models_dir
from docauth.errors import ModelError
from docauth.runtime.model import verify_file

#: dlib's reserved exponents for the special values of its portable float format (float_details.h).
_FLOAT_SPECIALS = {32000: math.inf, 32001: -math.inf, 32002: math.nan}

INPUT_SIZE = 150
MODEL_NAME = "face_embedder"


class DlibFormatError(ValueError):
    """The file is not the serialized network this converter knows."""


class _Stream:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def _take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise DlibFormatError(f"the file ends inside a value at byte {self.pos}")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def integer(self) -> int:
        control = self._take(1)[0]
        size = control & 0x0F
        if size > 8:
            raise DlibFormatError(f"an integer of {size} bytes at byte {self.pos - 1}")
        value = int.from_bytes(self._take(size), "little") if size else 0
        return -value if control & 0x80 else value

    def real(self) -> float:
        mantissa = self.integer()
        exponent = self.integer()
        if exponent in _FLOAT_SPECIALS:
            return _FLOAT_SPECIALS[exponent]
        return math.ldexp(mantissa, exponent)

    def string(self) -> str:
        return self._take(self.integer()).decode("latin-1")

    def boolean(self) -> bool:
        ch = self._take(1)
        if ch not in (b"0", b"1"):
            raise DlibFormatError(f"a bool that is neither '0' nor '1' at byte {self.pos - 1}")
        return ch == b"1"

    def tensor(self) -> np.ndarray:
        version = self.integer()
        shape = tuple(self.integer() for _ in range(4))
        count = int(np.prod(shape))
        if version == 2:
            values = np.frombuffer(self._take(4 * count), dtype="<f4")
        elif version == 1:
            values = np.array([self.real() for _ in range(count)], dtype=np.float32)
        else:
            raise DlibFormatError(f"tensor version {version}")
        return values.astype(np.float32).reshape(shape)

    def alias_tensor(self) -> tuple:
        version = self.integer()
        if version != 1:
            raise DlibFormatError(f"alias_tensor version {version}")
        return tuple(self.integer() for _ in range(4))  # num_samples, k, nr, nc


@dataclass
class Layer:
    """One layer's details as dlib serialized them (``kind`` is its version string; ``marker`` for a tag or
    skip layer, which the stream does not name)."""

    kind: str
    attrs: dict = field(default_factory=dict)
    params: np.ndarray | None = None


def _read_details(s: _Stream) -> Layer:
    kind = s.string()
    if kind == "con_4":
        params = s.tensor()
        attrs = {"num_filters": s.integer(), "nr": s.integer(), "nc": s.integer(),
                 "stride_y": s.integer(), "stride_x": s.integer(),
                 "padding_y": s.integer(), "padding_x": s.integer()}
        attrs["filters"] = s.alias_tensor()
        attrs["biases"] = s.alias_tensor()
        for _ in range(4):  # learning-rate and weight-decay multipliers
            s.real()
        return Layer("con", attrs, params)
    if kind == "affine_":
        params = s.tensor()
        gamma, beta = s.alias_tensor(), s.alias_tensor()
        mode = s.integer()
        return Layer("affine", {"gamma": gamma, "beta": beta, "mode": mode}, params)
    if kind == "relu_":
        return Layer("relu")
    if kind == "add_prev_":
        return Layer("add_prev")
    if kind in ("max_pool_2", "avg_pool_2"):
        attrs = {"nr": s.integer(), "nc": s.integer(), "stride_y": s.integer(), "stride_x": s.integer(),
                 "padding_y": s.integer(), "padding_x": s.integer()}
        return Layer(kind[:-2], attrs)
    if kind == "fc_2":
        attrs = {"num_outputs": s.integer(), "num_inputs": s.integer()}
        params = s.tensor()
        attrs["weights"] = s.alias_tensor()
        attrs["biases"] = s.alias_tensor()
        attrs["bias_mode"] = s.integer()
        for _ in range(4):
            s.real()
        return Layer("fc", attrs, params)
    raise DlibFormatError(f"layer {kind!r} is not one this converter writes")


def _skip_training_state(s: _Stream, tensors: int = 3) -> None:
    for _ in range(3):  # setup called, gradient stale, output getters disabled
        s.boolean()
    for _ in range(tensors):
        s.tensor()


def _read_subnet(s: _Stream) -> list[Layer]:
    """The layers under here, innermost first (iterative: the network is ~150 layers deep)."""
    opened: list[int] = []
    while True:
        version = s.integer()
        if version == 3:
            break
        if version not in (1, 2):
            raise DlibFormatError(f"layer version {version} at byte {s.pos}")
        opened.append(version)
    if s.string() != "input_rgb_image_sized":
        raise DlibFormatError("the input layer is not input_rgb_image_sized")
    mean = (s.real(), s.real(), s.real())
    rows, cols = s.integer(), s.integer()
    layers = [Layer("input", {"mean": mean, "rows": rows, "cols": cols})]
    layers.append(_read_details(s))
    _skip_training_state(s)
    s.integer()  # sample expansion factor
    for version in reversed(opened):
        if version == 1:
            layers.append(Layer("marker"))
            continue
        layers.append(_read_details(s))
        _skip_training_state(s)
    return layers


def read_dlib_network(path: str | Path) -> tuple[dict, list[Layer]]:
    """(loss details, layers innermost first) of a serialized ``loss_metric`` network."""
    s = _Stream(Path(path).read_bytes())
    if s.integer() != 1:
        raise DlibFormatError("not an add_loss_layer (version 1)")
    loss = {"kind": s.string()}
    if loss["kind"] != "loss_metric_2":
        raise DlibFormatError(f"loss {loss['kind']!r}, expected loss_metric_2")
    loss.update(margin=s.real(), dist_thresh=s.real())
    layers = _read_subnet(s)
    if s.pos != len(s.data):
        raise DlibFormatError(f"{len(s.data) - s.pos} bytes left after the network")
    return loss, layers


# -- the network's definition, innermost first ------------------------------------------------------
# anet_type = loss_metric<fc_no_bias<128, avg_pool_everything<alevel0<alevel1<alevel2<alevel3<alevel4<
#             max_pool<3,3,2,2, relu<affine<con<32,7,7,2,2, input_rgb_image_sized<150>>>>>>>>>>>>>
# with residual = add_prev1<block<N,BN,1,tag1<SUBNET>>>,
#      residual_down = add_prev2<avg_pool<2,2,2,2, skip1<tag2<block<N,BN,2,tag1<SUBNET>>>>>>,
#      block = BN<con<N,3,3,1,1, relu<BN<con<N,3,3,stride,stride, SUBNET>>>>>, BN = affine,
#      ares = relu<residual<...>>, ares_down = relu<residual_down<...>>.

def _ares(n: int) -> list[tuple]:
    return [("tag1",), ("con", n, 3, 1), ("affine",), ("relu",), ("con", n, 3, 1), ("affine",),
            ("add_prev", "tag1"), ("relu",)]


def _ares_down(n: int) -> list[tuple]:
    return [("tag1",), ("con", n, 3, 2), ("affine",), ("relu",), ("con", n, 3, 1), ("affine",),
            ("tag2",), ("skip1",), ("avg_pool", 2, 2), ("add_prev", "tag2"), ("relu",)]


ANET_LAYERS: list[tuple] = (
    [("input",), ("con", 32, 7, 2), ("affine",), ("relu",), ("max_pool", 3, 2)]
    + _ares(32) * 3                                   # alevel4
    + _ares_down(64) + _ares(64) * 3                  # alevel3
    + _ares_down(128) + _ares(128) * 2                # alevel2
    + _ares_down(256) + _ares(256) * 2                # alevel1
    + _ares_down(256)                                 # alevel0
    + [("avg_pool", 0, 1), ("fc", 128)]
)


def _check_against_definition(layers: list[Layer]) -> None:
    if len(layers) != len(ANET_LAYERS):
        raise DlibFormatError(f"{len(layers)} layers in the file, {len(ANET_LAYERS)} in anet_type")
    for i, (layer, spec) in enumerate(zip(layers, ANET_LAYERS)):
        want = "marker" if spec[0] in ("tag1", "tag2", "skip1") else spec[0]
        if layer.kind != want:
            raise DlibFormatError(f"layer {i}: {layer.kind} in the file, {spec[0]} in anet_type")
        a = layer.attrs
        if spec[0] == "con" and (a["num_filters"], a["nr"], a["nc"], a["stride_y"], a["stride_x"]) != (
                spec[1], spec[2], spec[2], spec[3], spec[3]):
            raise DlibFormatError(f"layer {i}: con {a} is not {spec}")
        if spec[0] in ("max_pool", "avg_pool") and (a["nr"], a["nc"], a["stride_y"]) != (spec[1], spec[1], spec[2]):
            raise DlibFormatError(f"layer {i}: {spec[0]} {a} is not {spec}")
        if spec[0] == "fc" and (a["num_outputs"], a["bias_mode"]) != (spec[1], 1):  # 1: FC_NO_BIAS
            raise DlibFormatError(f"layer {i}: fc {a} is not {spec} without bias")
        if spec[0] == "input" and (a["rows"], a["cols"]) != (INPUT_SIZE, INPUT_SIZE):
            raise DlibFormatError(f"the input is {a['rows']}x{a['cols']}, not {INPUT_SIZE}")


# -- ONNX -------------------------------------------------------------------------------------------
def _pool_out(size: int, window: int, stride: int, pad: int) -> int:
    return 1 + (size + 2 * pad - window) // stride


class _Graph:
    def __init__(self):
        from onnx import helper, numpy_helper  # deferred: only building needs onnx

        self.helper, self.numpy_helper = helper, numpy_helper
        self.nodes, self.inits = [], []
        self.count = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}_{self.count}"

    def const(self, prefix: str, value: np.ndarray) -> str:
        name = self.name(prefix)
        self.inits.append(self.numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(self, op: str, inputs: list[str], **attrs) -> str:
        out = self.name(op.lower())
        self.nodes.append(self.helper.make_node(op, inputs, [out], **attrs))
        return out


def _pad_to(g: _Graph, x: str, shape: tuple, target: tuple) -> str:
    """dlib's add_prev adds tensors of different sizes as if each were zero beyond its end."""
    if shape == target:
        return x
    pads = [0, 0, 0, 0] + [0, target[0] - shape[0], target[1] - shape[1], target[2] - shape[2]]
    return g.node("Pad", [x, g.const("pads", np.array(pads, dtype=np.int64))], mode="constant")


def to_onnx(layers: list[Layer], opset: int = 17):
    """The ONNX model of ``layers`` (checked against :data:`ANET_LAYERS`): input ``chips`` N x 150 x 150 x 3
    RGB face chips as dlib cuts them, their 0..255 values as float32 (the runtime layer feeds float32; the
    values are exact), output ``encodings`` N x 128 float32."""
    from onnx import TensorProto

    _check_against_definition(layers)
    g = _Graph()
    h = g.helper
    mean = np.array(layers[0].attrs["mean"], dtype=np.float32).reshape(1, 3, 1, 1)
    x = g.node("Transpose", ["chips"], perm=[0, 3, 1, 2])
    # input_rgb_image_sized: (pixel - channel mean) / 256, in float as dlib computes it
    x = g.node("Sub", [x, g.const("mean", mean)])
    x = g.node("Mul", [x, g.const("scale", np.array(1.0 / 256.0, dtype=np.float32))])
    shape = (3, INPUT_SIZE, INPUT_SIZE)  # (channels, rows, cols)
    tags: dict[str, tuple[str, tuple]] = {}
    for layer, spec in zip(layers[1:], ANET_LAYERS[1:]):
        kind = spec[0]
        if kind in ("tag1", "tag2"):
            tags[kind] = (x, shape)
        elif kind == "skip1":
            x, shape = tags["tag1"]
        elif kind == "con":
            a = layer.attrs
            k, n = shape[0], a["num_filters"]
            size = n * k * a["nr"] * a["nc"]
            if layer.params.size != size + n:
                raise DlibFormatError(f"con params {layer.params.size}, expected {size + n}")
            flat = layer.params.reshape(-1)
            weights = flat[:size].reshape(n, k, a["nr"], a["nc"])
            bias = flat[size:]
            py, px = a["padding_y"], a["padding_x"]
            x = g.node("Conv", [x, g.const("w", weights), g.const("b", bias)],
                       kernel_shape=[a["nr"], a["nc"]], strides=[a["stride_y"], a["stride_x"]],
                       pads=[py, px, py, px])
            shape = (n, _pool_out(shape[1], a["nr"], a["stride_y"], py), _pool_out(shape[2], a["nc"], a["stride_x"], px))
        elif kind == "affine":
            flat = layer.params.reshape(-1)
            k = shape[0]
            if flat.size != 2 * k or layer.attrs["mode"] != 0:  # 0: CONV_MODE, one gamma/beta per channel
                raise DlibFormatError(f"affine params {flat.size} / mode {layer.attrs['mode']} for {k} channels")
            x = g.node("Mul", [x, g.const("gamma", flat[:k].reshape(1, k, 1, 1))])
            x = g.node("Add", [x, g.const("beta", flat[k:].reshape(1, k, 1, 1))])
        elif kind == "relu":
            x = g.node("Relu", [x])
        elif kind in ("max_pool", "avg_pool"):
            a = layer.attrs
            window = (a["nr"] or shape[1], a["nc"] or shape[2])
            if a["padding_y"] or a["padding_x"]:
                raise DlibFormatError("padded pooling is not written by this converter")
            if a["nr"] == 0:  # avg_pool_everything
                x = g.node("GlobalAveragePool", [x])
                shape = (shape[0], 1, 1)
            else:
                op = "MaxPool" if kind == "max_pool" else "AveragePool"
                x = g.node(op, [x], kernel_shape=list(window), strides=[a["stride_y"], a["stride_x"]])
                shape = (shape[0], _pool_out(shape[1], window[0], a["stride_y"], 0),
                         _pool_out(shape[2], window[1], a["stride_x"], 0))
        elif kind == "add_prev":
            other, other_shape = tags[spec[1]]
            target = tuple(max(p, q) for p, q in zip(shape, other_shape))
            x = g.node("Add", [_pad_to(g, x, shape, target), _pad_to(g, other, other_shape, target)])
            shape = target
        elif kind == "fc":
            a = layer.attrs
            if a["num_inputs"] != shape[0] * shape[1] * shape[2]:
                raise DlibFormatError(f"fc takes {a['num_inputs']} inputs, the network gives {shape}")
            weights = layer.params.reshape(a["num_inputs"], a["num_outputs"])
            x = g.node("Flatten", [x], axis=1)
            x = g.node("MatMul", [x, g.const("fc", weights)])
    g.nodes[-1].output[0] = "encodings"
    graph = h.make_graph(
        g.nodes, "dlib_face_recognition_resnet_model_v1",
        [h.make_tensor_value_info("chips", TensorProto.FLOAT, ["batch", INPUT_SIZE, INPUT_SIZE, 3])],
        [h.make_tensor_value_info("encodings", TensorProto.FLOAT, ["batch", 128])],
        g.inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)], producer_name="docauth")
    model.ir_version = 8  # readable by every ONNX Runtime and OpenVINO the project supports
    return model


def metadata(onnx_file: Path, source: Path, parity: dict | None = None) -> dict:
    """The model's ``.json`` beside it (the conventions of models/*.json)."""
    return {
        "name": MODEL_NAME,
        "version": "dlib_face_recognition_resnet_model_v1",
        "format": "onnx",
        "task": "face descriptor: a 128-d encoding of an aligned face chip; same person when the "
                "Euclidean distance is small",
        "source": f"dlib's face recognition ResNet (dlib_face_recognition_resnet_model_v1.dat from the "
                  f"face_recognition_models package, CC0), converted by docauth.training.face_model from "
                  f"{source.name} (sha256 {hashlib.sha256(source.read_bytes()).hexdigest()})",
        "license": "CC0-1.0",
        "input": {"height": INPUT_SIZE, "width": INPUT_SIZE, "channels": 3, "dtype": "float32",
                  "range": [0.0, 255.0], "layout": "NHWC", "color": "RGB", "dynamic": ["batch"]},
        "labels": [f"d{i}" for i in range(128)],
        "output": "N x 128 float32 encodings, the values of face_recognition.face_encodings",
        "preprocessing": "dlib cuts the chip: dlib.get_face_chip(image, 5-point shape, size=150, padding=0.25), "
                         "as face_recognition.face_encodings does with num_jitters=1; the graph subtracts "
                         "the channel means and divides by 256 (dlib's input_rgb_image_sized)",
        "sha256": {onnx_file.name: hashlib.sha256(onnx_file.read_bytes()).hexdigest()},
        "tolerance": {
            "max_abs_diff": 1e-4,
            "why": "encodings are compared with templates enrolled by dlib and with a threshold calibrated on "
                   "dlib's encodings; an engine may move an encoding by no more than dlib's own float "
                   "arithmetic does",
        },
        **({"parity": parity} if parity else {}),
    }


def build_onnx(source: Path, out_dir: Path) -> Path:
    """Write ``face_embedder.onnx`` into ``out_dir``; returns its path."""
    import onnx

    _, layers = read_dlib_network(source)
    model = to_onnx(layers)
    onnx.checker.check_model(model)
    out_dir.mkdir(parents=True, exist_ok=True)
    onnx_file = out_dir / f"{MODEL_NAME}.onnx"
    onnx.save(model, onnx_file)
    return onnx_file


def build(source: Path, out_dir: Path) -> Path:
    """Write ``face_embedder.onnx`` and its ``.json`` into ``out_dir``; returns the ONNX path."""
    onnx_file = build_onnx(source, out_dir)
    meta = metadata(onnx_file, source)
    (out_dir / f"{MODEL_NAME}.json").write_text(json.dumps(meta, indent=2) + "\n")
    return onnx_file


def dlib_model_file() -> Path:
    import face_recognition_models  # deferred: the weights' package, needed only to build

    return Path(face_recognition_models.face_recognition_model_location())



@click.command("face-embedder")
@click.option("--source", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="dlib's dlib_face_recognition_resnet_model_v1.dat (default: the face_recognition_models one).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where face_embedder.onnx and .json go (default: the models directory).")
@click.option("--onnx-only", is_flag=True,
              help="Write the ONNX file alone and check it against the SHA-256 its .json there records "
                   "(scripts/setup: the file is built, not kept in git).")
def convert_face_embedder(source, out_dir, onnx_only):
    """Convert dlib's face descriptor network to ONNX (the same encodings, run by the runtime layer)."""
    out_dir = out_dir or default_models_dir()
    if not onnx_only:
        path = build(source or dlib_model_file(), out_dir)
        click.echo(f"wrote {path} and {path.with_suffix('.json').name}")
        return
    recorded = json.loads((out_dir / f"{MODEL_NAME}.json").read_text())
    path = build_onnx(source or dlib_model_file(), out_dir)
    try:
        verify_file(path, recorded)
    except ModelError as exc:
        path.unlink()
        raise click.ClickException(f"{exc} (dlib's file or the onnx package differs from the recorded build)")
    click.echo(f"wrote {path}, as its .json records")
