"""The self-play dataset: a folder of chunks, each a versioned ``.npz`` with a header.

One chunk holds the positions of a few whole games (so a held-out split by chunk is a
split by game). Its arrays, ``n`` positions of a board with ``P`` points:

==============  ================  =====================================================
``features``    uint8 (n, F, B)   the :mod:`~margo_gtp.players.net_features` bits, packed
                                  little-endian along the points (B = ceil(P / 8))
``globals``     float32 (n, 2)    the global inputs
``policy``      float16 (n, P+2)  the root's visit shares (points, pass, swap)
``policy_mask`` uint8 (n,)        1 where the search was a full one and ``policy`` is a target
``value``       int8 (n,)         the game's result for the colour to move: 0 win, 1 draw, 2 loss
``ownership``   int8 (n, P)       the final owner of each point: 1 own, -1 other, 0 neither
``score``       float32 (n,)      the final score, own minus other (komi included)
``played``      int16 (n,)        the policy index of the move played from here
``ply``         int16 (n,)        moves before this position (0 starts a game): with ``played``
                                  the games can be replayed (baselines need the boards)
``header``      JSON text         format, version, features version, size, counts, the command,
                                  seed, engine commit, and the sha256 digest of the arrays
==============  ================  =====================================================

:func:`read_chunk` refuses, naming the file, anything that is not such a chunk: a file
that is not an npz, a missing array, another format or version, features of another
version, another board size, counts that disagree, or a digest that does not match.
Chunks are written atomically (:func:`margo_gtp.files.write_atomically`), so a killed run leaves
whole chunks only and resumes after the last one.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from margo_gtp import files
from margo_gtp.players.net_features import FEATURES, FEATURES_VERSION, GLOBALS

__all__ = ["DATA_FORMAT", "DATA_VERSION", "Chunk", "DatasetError", "chunk_path", "list_chunks", "read_chunk",
           "write_chunk"]

DATA_FORMAT = "margo-netdata"
DATA_VERSION = 1
MAX_CHUNK_BYTES = 1 << 30  # a chunk file larger than this is not one of ours (and would not fit)
ARRAYS = ("features", "globals", "policy", "policy_mask", "value", "ownership", "score", "played", "ply")
_CHUNK_NAME = re.compile(r"chunk-(\d{6})\.npz")


class DatasetError(ValueError):
    """Raised when a dataset file or folder is not a usable margo-netdata dataset"""


@dataclass
class Chunk:
    """The arrays of one chunk (module doc) and its header."""

    header: dict
    features: np.ndarray
    globals: np.ndarray
    policy: np.ndarray
    policy_mask: np.ndarray
    value: np.ndarray
    ownership: np.ndarray
    score: np.ndarray
    played: np.ndarray
    ply: np.ndarray

    def __len__(self) -> int:
        return len(self.value)

    def unpacked_features(self) -> np.ndarray:
        points = self.ownership.shape[1]
        return np.unpackbits(self.features, axis=2, bitorder="little", count=points)


def _digest(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in ARRAYS:
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def chunk_path(folder: Path, number: int) -> Path:
    return folder / f"chunk-{number:06d}.npz"


def write_chunk(path: Path, header: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write one chunk atomically; ``header`` gets the format, version, counts and digest."""
    header = dict(header, format=DATA_FORMAT, version=DATA_VERSION, features_version=FEATURES_VERSION,
                  positions=int(len(arrays["value"])), digest=_digest(arrays))
    buffer = io.BytesIO()
    np.savez_compressed(buffer, header=np.frombuffer(json.dumps(header).encode(), np.uint8), **arrays)
    files.write_atomically(path, buffer.getvalue())


def read_chunk(path: Path, size: int | None = None) -> Chunk:
    """Read and check one chunk (module doc); DatasetError names the file and the fault."""
    try:
        if not path.is_file():
            raise DatasetError(f"{path}: not a regular file")
        if path.stat().st_size > MAX_CHUNK_BYTES:
            raise DatasetError(f"{path}: larger than {MAX_CHUNK_BYTES} bytes, not a dataset chunk")
        with np.load(path, allow_pickle=False) as data:
            missing = [name for name in ("header", *ARRAYS) if name not in data.files]
            if missing:
                raise DatasetError(f"{path}: not a {DATA_FORMAT} chunk (missing {', '.join(missing)})")
            header = json.loads(data["header"].tobytes().decode())
            arrays = {name: data[name] for name in ARRAYS}
    except DatasetError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, KeyError, UnicodeDecodeError) as error:
        raise DatasetError(f"{path}: not a readable {DATA_FORMAT} chunk ({type(error).__name__}: {error})") from None
    if not isinstance(header, dict) or header.get("format") != DATA_FORMAT:
        raise DatasetError(f"{path}: not a {DATA_FORMAT} chunk (format {header.get('format') if isinstance(header, dict) else header!r})")
    if header.get("version") != DATA_VERSION:
        raise DatasetError(f"{path}: dataset version {header.get('version')!r}, this program reads {DATA_VERSION}")
    if header.get("features_version") != FEATURES_VERSION:
        raise DatasetError(f"{path}: features of version {header.get('features_version')!r}, "
                           f"this program encodes version {FEATURES_VERSION}")
    if size is not None and header.get("size") != size:
        raise DatasetError(f"{path}: positions of size {header.get('size')!r}, expected {size}")
    n = header.get("positions")
    shapes_ok = (arrays["features"].ndim == 3 and arrays["features"].shape[:2] == (n, FEATURES)
                 and arrays["globals"].shape == (n, GLOBALS) and arrays["ownership"].ndim == 2
                 and arrays["policy"].shape == (n, arrays["ownership"].shape[1] + 2)
                 and all(arrays[name].shape == (n,) for name in ("policy_mask", "value", "score", "played", "ply")))
    if not shapes_ok:
        raise DatasetError(f"{path}: arrays do not match the header's {n!r} positions")
    if header.get("digest") != _digest(arrays):
        raise DatasetError(f"{path}: digest does not match its arrays (damaged chunk)")
    return Chunk(header, **arrays)


def list_chunks(folder: Path) -> list[Path]:
    """The chunk files of a dataset folder, in order; DatasetError for a folder with none."""
    if not folder.is_dir():
        raise DatasetError(f"{folder}: not a folder")
    chunks = sorted(p for p in folder.iterdir() if _CHUNK_NAME.fullmatch(p.name))
    if not chunks:
        raise DatasetError(f"{folder}: no dataset chunks (chunk-NNNNNN.npz) in it")
    return chunks
