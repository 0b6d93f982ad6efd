"""A learned value model: plain arrays in an `.npz` file, evaluated with numpy.

The file holds a JSON header (as a uint8 array: the game's name and params, the player
count, the feature layout's size and fingerprint, the network's shape and the training
settings), the inputs' scaling (`mean`, `scale`) and the layers' weights (`w0`, `b0`,
`w1`, `b1`, ...). It is read with `allow_pickle=False`, and every part is checked before
use: a model file is untrusted input like a game file, so a damaged or hostile one (not
a zip, unknown or missing arrays, pickled objects, wrong shapes or types, NaN, sizes
beyond `MAX_BYTES`) is refused with one `RulekitError`, never a traceback.

The network maps a seat's features to its expected share of the win (1 a win, 1/k a win
shared by k, 0 a loss): one or more hidden layers of ReLU units, a linear output.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from rulekit.errors import RulekitError

if TYPE_CHECKING:
    from rulekit import Game

#: what a model file's header says it is, and the version of the format
FORMAT = "rulekit-value-model"
VERSION = 1
#: the largest model file, and the most bytes its arrays may take once read
MAX_BYTES = 64 * 1024 * 1024
#: the most inputs, units of a hidden layer and hidden layers a model may have
MAX_INPUTS = 200_000
MAX_UNITS = 4096
MAX_LAYERS = 4
#: the largest header, in bytes
MAX_HEADER = 1024 * 1024
#: the activations a model may use
ACTIVATIONS = ("relu", "tanh")


class Model:
    """A value network with its header; `values(x)` gives one value per row of `x`."""

    def __init__(self, header: dict[str, Any], mean: np.ndarray, scale: np.ndarray,
                 weights: Sequence[tuple[np.ndarray, np.ndarray]]) -> None:
        self.header = header
        self.mean = np.asarray(mean, dtype=np.float64)
        self.scale = np.asarray(scale, dtype=np.float64)
        self.weights = [(np.asarray(w, dtype=np.float64), np.asarray(b, dtype=np.float64))
                        for w, b in weights]
        self.activation = header.get("activation", "relu")

    @property
    def inputs(self) -> int:
        return int(self.mean.shape[0])

    def scaled(self, x: np.ndarray) -> np.ndarray:
        """The inputs as the network reads them: centred, scaled, clipped to +-10."""
        return np.clip((x - self.mean) / self.scale, -10.0, 10.0)

    def values(self, x: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
        """The value of each row of features (a seat's expected share of the win)."""
        h = self.scaled(np.asarray(x, dtype=np.float64))
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(self.weights):
            h = h @ w + b
            if i < last:
                h = np.maximum(h, 0.0) if self.activation == "relu" else np.tanh(h)
        return np.nan_to_num(h[:, 0], nan=-np.inf)  # weights that overflow: worth nothing

    def check_game(self, game: Game, players: int, fingerprint: str | None = None,
                   size: int | None = None) -> None:
        """Refuse a game, variant or player count the model was not trained for."""
        h = self.header
        where = h.get("source", "the model")
        if h["game"] != game.name:
            raise RulekitError(f"{where} was trained for the game {h['game']!r}, not "
                               f"{game.name!r}: train one for this game with `rulekit train`")
        if canonical(h["params"]) != canonical(game.params):
            changed = sorted(k for k in set(h["params"]) | set(game.params)
                             if canonical(h["params"].get(k)) != canonical(game.params.get(k)))
            raise RulekitError(f"{where} was trained for other params of {game.name} "
                               f"(they differ in {', '.join(changed)}): train one for this "
                               f"variant with `rulekit train ... --set NAME=VALUE`")
        if h["players"] != players:
            raise RulekitError(f"{where} was trained for {h['players']} players, not "
                               f"{players}: train one with `rulekit train --players "
                               f"{players}`")
        if fingerprint is not None and (h["layout"] != fingerprint or self.inputs != size):
            raise RulekitError(f"{where} reads features of another layout than this game "
                               f"file gives (the rules changed since it was trained): "
                               f"train it again")

    def save(self, path: str | Path) -> None:
        """Write the model as an `.npz` of plain arrays (what `load` reads)."""
        header = json.dumps(self.header, sort_keys=True).encode("utf-8")
        arrays: dict[str, np.ndarray] = {
            "header": np.frombuffer(header, dtype=np.uint8),
            "mean": self.mean, "scale": self.scale}
        for i, (w, b) in enumerate(self.weights):
            arrays[f"w{i}"] = w
            arrays[f"b{i}"] = b
        buffer = io.BytesIO()
        # the archive written by hand with a fixed date, so that the same model gives the
        # same bytes (np.savez stamps the time of writing)
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
            for key, array in arrays.items():
                info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                with archive.open(info, "w") as entry:
                    np.lib.format.write_array(entry, np.ascontiguousarray(array),
                                              allow_pickle=False)
        Path(path).write_bytes(buffer.getvalue())


def canonical(value: Any) -> str:
    """Params as one text, to compare a model's with a game's."""
    return json.dumps(value, sort_keys=True, default=str)


def load(path: str | Path) -> Model:
    """The model of a file, checked part by part; anything else is one RulekitError."""
    name = str(path)
    try:
        p = Path(path)
        if not p.is_file():
            raise _Bad("no such file" if not p.exists() else "not a file")
        if p.stat().st_size > MAX_BYTES:
            raise _Bad(f"larger than {MAX_BYTES // (1024 * 1024)} MB")
        data = p.read_bytes()
        model = _read(data)
    except _Bad as exc:
        raise RulekitError(f"cannot use the model {name!r}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - numpy and zipfile on hostile bytes raise
        # many kinds (ValueError, BadZipFile, tokenize's TokenError, SyntaxError, ...): each
        # means the file is no model
        raise RulekitError(f"cannot use the model {name!r}: it is not a model file written "
                           f"by `rulekit train` ({type(exc).__name__})") from None
    model.header["source"] = f"the model {name!r}"
    return model


class _Bad(Exception):
    """A reason a model file is refused, in words."""


def _read(data: bytes) -> Model:
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise _Bad("it is not a model file written by `rulekit train` (not an .npz archive)")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
        if len(infos) > 2 * MAX_LAYERS + 4:
            raise _Bad("it holds too many arrays for a model")
        if sum(i.file_size for i in infos) > MAX_BYTES:
            raise _Bad(f"its arrays would take more than {MAX_BYTES // (1024 * 1024)} MB")
        names = {i.filename for i in infos}
        for info in infos:  # a declared shape larger than the data would be allocated first
            with archive.open(info) as entry:
                _check_npy(entry, info.file_size, info.filename)
    layers = len([n for n in names if n.startswith("w")])
    expected = {"header.npy", "mean.npy", "scale.npy"} | {
        f"{k}{i}.npy" for i in range(layers) for k in "wb"}
    if names != expected or not 2 <= layers <= MAX_LAYERS + 1:
        raise _Bad("its arrays are not a model's (header, mean, scale, w0, b0, ...)")
    with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
        raw = {n[:-4]: arrays[n[:-4]] for n in names}
    header = _header(raw["header"])
    if header["format"] != FORMAT or header["version"] != VERSION:
        raise _Bad(f"it is a model of another format ({header['format']!r} version "
                   f"{header['version']!r}); this rulekit reads {FORMAT!r} version {VERSION}")
    mean, scale = _vector(raw["mean"], "mean"), _vector(raw["scale"], "scale")
    inputs = mean.shape[0]
    if not 1 <= inputs <= MAX_INPUTS or scale.shape != mean.shape or header["inputs"] != inputs:
        raise _Bad("its scaling does not fit its inputs")
    if not bool(np.all(scale > 0)):
        raise _Bad("its scaling has a zero or negative scale")
    weights = []
    width = inputs
    for i in range(layers):
        w, b = raw[f"w{i}"], raw[f"b{i}"]
        out = 1 if i == layers - 1 else None
        if w.ndim != 2 or b.ndim != 1 or w.shape[0] != width or b.shape[0] != w.shape[1] or (
                out is not None and w.shape[1] != out) or not 1 <= w.shape[1] <= MAX_UNITS:
            raise _Bad(f"its layer {i} has the wrong shape ({w.shape} and {b.shape} after "
                       f"{width} units)")
        for a, what in ((w, f"w{i}"), (b, f"b{i}")):
            _numbers(a, what)
        weights.append((w.astype(np.float64), b.astype(np.float64)))
        width = w.shape[1]
    if header["hidden"] != [w.shape[1] for w, _ in weights[:-1]]:
        raise _Bad("its header's hidden layers do not fit its arrays")
    return Model(header, mean, scale, weights)


def _check_npy(entry: IO[bytes], size: int, name: str) -> None:
    """An array's own header, read before numpy does: plain numbers, no objects, and no
    more elements than the entry's bytes hold."""
    version = np.lib.format.read_magic(entry)
    if version == (1, 0):
        shape, _order, dtype = np.lib.format.read_array_header_1_0(entry)
    elif version == (2, 0):
        shape, _order, dtype = np.lib.format.read_array_header_2_0(entry)
    else:
        raise _Bad(f"its array {name} has an unknown format")
    if dtype.hasobject or dtype.kind not in "fu":
        raise _Bad(f"its array {name} holds {dtype} values, not plain numbers")
    count = 1
    for n in shape:
        count *= n
    if count * dtype.itemsize > size:
        raise _Bad(f"its array {name} declares more values than it holds")


def _header(raw: np.ndarray) -> dict[str, Any]:
    if raw.dtype != np.uint8 or raw.ndim != 1 or raw.shape[0] > MAX_HEADER:
        raise _Bad("its header is not a JSON text")
    try:
        header = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise _Bad("its header is not a JSON text") from None
    kinds = {"format": str, "version": int, "game": str, "params": dict, "players": int,
             "inputs": int, "layout": str, "hidden": list, "activation": str}
    if not isinstance(header, dict) or any(not isinstance(header.get(k), t)
                                           for k, t in kinds.items()):
        raise _Bad("its header lacks the game, params, players, inputs, layout, hidden "
                   "layers or activation")
    if header["activation"] not in ACTIVATIONS:
        raise _Bad(f"its activation {header['activation']!r} is none of "
                   f"{', '.join(ACTIVATIONS)}")
    return header


def _vector(a: np.ndarray, what: str) -> np.ndarray:
    if a.ndim != 1:
        raise _Bad(f"its {what} is not a vector")
    return _numbers(a, what).astype(np.float64)


def _numbers(a: np.ndarray, what: str) -> np.ndarray:
    if a.dtype.kind != "f":
        raise _Bad(f"its {what} holds {a.dtype} values, not floating-point numbers")
    if not bool(np.all(np.isfinite(a))):
        raise _Bad(f"its {what} holds NaN or infinite values")
    if a.size and float(np.max(np.abs(a))) > 1e12:
        raise _Bad(f"its {what} holds values too large for a model")
    return a
