"""Train the policy/value network on a self-play dataset and export it to ONNX.

The model (:class:`MarGoNet`) is a small residual net, as KataGo's small-board runs
start from: a 3x3 stem, ``blocks`` residual blocks of two 3x3 convolutions with batch
norm, ``width`` channels, and four heads:

* **policy**: one 1x1 convolution to one plane per level, read back at each point's cell
  (:class:`~margo_gtp.players.net_features.Encoding`), plus pass and swap from the pooled
  trunk: logits over every 3-D point, then pass, then swap;
* **value**: win / draw / loss logits for the colour to move, from the trunk's mean and max;
* **ownership**: tanh per point, +1 own at the end of the game, -1 the other side's;
* **score**: the final score (own minus other) divided by the board's points.

The loss is KataGo's mix, smaller weights on the auxiliary heads: policy cross-entropy
(only where the search was a full one), value cross-entropy, 1.5 x ownership mean squared
error, and 0.5 x score Huber. Each batch is turned by one of the 8 symmetries of the
square, drawn from the seeded generator, so a run is reproducible from its seed on one
machine (PyTorch's CPU kernels may differ between machines in the last bits).

:func:`export_onnx` writes the weights file the engine reads: ONNX with the header in
its metadata (``margo-net`` format version, encoding, board size, features version, the
training command and the dataset's digest), outputs named as
:mod:`margo_gtp.players.net` reads them.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
import warnings
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from margo_gtp import files
from margo_gtp.lab.netdata import DatasetError, list_chunks, read_chunk
from margo_gtp.players.net_features import FEATURES, FEATURES_VERSION, encoding_for, symmetries

__all__ = ["MarGoNet", "Dataset", "export_onnx", "load_dataset", "load_generation", "train"]

NET_FORMAT = "margo-net"
NET_VERSION = 1
OWNERSHIP_WEIGHT = 1.5
SCORE_WEIGHT = 0.5


class ResidualBlock(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(width, width, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(y)))


class MarGoNet(nn.Module):
    """The policy/value net of one board size and encoding (module doc). Its input is the
    ``(batch, channels, grid, grid)`` planes of :meth:`Encoding.planes`."""

    def __init__(self, encoding: str, size: int, blocks: int = 6, width: int = 32) -> None:
        super().__init__()
        enc = encoding_for(encoding, size)
        self.encoding, self.size, self.blocks, self.width = encoding, size, blocks, width
        self.levels = enc.levels
        self.register_buffer("cells", torch.as_tensor(enc.flat_cells), persistent=False)
        self.stem = nn.Sequential(nn.Conv2d(enc.channels, width, 3, padding=1, bias=False), nn.BatchNorm2d(width),
                                  nn.ReLU())
        self.trunk = nn.Sequential(*(ResidualBlock(width) for _ in range(blocks)))
        self.policy_conv = nn.Sequential(nn.Conv2d(width, width, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
                                         nn.Conv2d(width, enc.levels, 1))
        self.pooled = nn.Sequential(nn.Linear(2 * width, 64), nn.ReLU())
        self.pass_swap = nn.Linear(64, 2)
        self.value = nn.Linear(64, 3)
        self.score = nn.Linear(64, 1)
        self.ownership_conv = nn.Conv2d(width, enc.levels, 1)

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, ...]:
        x = self.trunk(self.stem(planes))
        batch = x.shape[0]
        pooled = self.pooled(torch.cat([x.mean(dim=(2, 3)), x.amax(dim=(2, 3))], dim=1))
        point_logits = self.policy_conv(x).reshape(batch, -1).index_select(1, self.cells)
        policy = torch.cat([point_logits, self.pass_swap(pooled)], dim=1)
        ownership = torch.tanh(self.ownership_conv(x).reshape(batch, -1).index_select(1, self.cells))
        return policy, self.value(pooled), ownership, self.score(pooled)


class Dataset:
    """Dataset folders in memory: unpacked features and the targets, split by chunk.

    Several folders (the generations of an expert-iteration run) are split one by one, so a
    folder's held-out games stay held out whatever is trained beside it, and a new
    generation is measured on the same positions as the last."""

    def __init__(self, folders: Path | list[Path], size: int, held_out: float) -> None:
        folders = [folders] if isinstance(folders, Path) else list(folders)
        train_chunks, test_chunks, digests = [], [], []
        for folder in folders:
            chunks = [read_chunk(path, size) for path in list_chunks(folder)]
            held_numbers = held_out_numbers(len(chunks), held_out)
            # the last folder's (the newest generation's) training positions are the tail of ``train``
            self.latest_start = sum(len(c) for c in train_chunks)
            train_chunks += [c for i, c in enumerate(chunks) if i not in held_numbers]
            test_chunks += [c for i, c in enumerate(chunks) if i in held_numbers]
            digests += [c.header["digest"] for c in chunks]
        # one folder's digest is what it was before several folders were read
        self.digest = hashlib.sha256("".join(digests).encode()).hexdigest()
        self.games = sum(c.header.get("games", 0) for c in train_chunks + test_chunks)
        self.train = self._join(train_chunks)
        self.test = self._join(test_chunks)
        if self.train is None or len(self.train["value"]) == 0:
            raise DatasetError(f"{', '.join(map(str, folders))}: no positions to train on")

    @staticmethod
    def _join(chunks) -> dict[str, np.ndarray] | None:
        if not chunks:
            return None
        return {
            "features": np.concatenate([c.unpacked_features() for c in chunks]),
            "globals": np.concatenate([c.globals for c in chunks]),
            "policy": np.concatenate([c.policy for c in chunks]).astype(np.float32),
            "policy_mask": np.concatenate([c.policy_mask for c in chunks]).astype(np.float32),
            "value": np.concatenate([c.value for c in chunks]).astype(np.int64),
            "ownership": np.concatenate([c.ownership for c in chunks]).astype(np.float32),
            "score": np.concatenate([c.score for c in chunks]).astype(np.float32),
        }


def load_dataset(folders: Path | list[Path], size: int, held_out: float = 0.05) -> Dataset:
    return Dataset(folders, size, held_out)


def _batch(model: MarGoNet, data: dict, index: np.ndarray, symmetry: np.ndarray | None, device) -> tuple:
    """Tensors of the positions ``index``, turned by ``symmetry`` (a point permutation)."""
    features = data["features"][index]
    policy = data["policy"][index]
    ownership = data["ownership"][index]
    if symmetry is not None:
        inverse = np.argsort(symmetry)  # new[:, perm] = old  <=>  new = old[:, inverse]
        features = features[:, :, inverse]
        ownership = ownership[:, inverse]
        policy = np.concatenate([policy[:, :-2][:, inverse], policy[:, -2:]], axis=1)
    planes = torch_planes(model, torch.as_tensor(features, device=device),
                          torch.as_tensor(data["globals"][index], device=device))
    return (planes, torch.as_tensor(policy, device=device), torch.as_tensor(data["policy_mask"][index], device=device),
            torch.as_tensor(data["value"][index], device=device), torch.as_tensor(ownership, device=device),
            torch.as_tensor(data["score"][index] / _points(model.size), device=device))


def torch_planes(model: MarGoNet, features: torch.Tensor, globals_: torch.Tensor) -> torch.Tensor:
    """:meth:`Encoding.planes` on the training device (the same layout; a test compares them)."""
    enc = encoding_for(model.encoding, model.size)
    batch = features.shape[0]
    out = torch.zeros(batch, FEATURES, enc.levels * enc.grid * enc.grid, device=features.device)
    out[:, :, model.cells] = features.float()
    out = out.reshape(batch, FEATURES * enc.levels, enc.grid, enc.grid)
    flat = globals_.float()[:, :, None, None].expand(batch, globals_.shape[1], enc.grid, enc.grid)
    return torch.cat([out, flat], dim=1)


def _points(size: int) -> int:
    return size * (size + 1) * (2 * size + 1) // 6


def losses(model: MarGoNet, batch: tuple) -> dict[str, torch.Tensor]:
    planes, policy, mask, value, ownership, score = batch
    policy_logits, value_logits, ownership_out, score_out = model(planes)
    policy_ce = -(policy * F.log_softmax(policy_logits, dim=1)).sum(dim=1)
    return {
        "policy": (policy_ce * mask).sum() / mask.sum().clamp(min=1),
        "value": F.cross_entropy(value_logits, value),
        "ownership": F.mse_loss(ownership_out, ownership),
        "score": F.huber_loss(score_out.squeeze(1), score),
    }


def _total(parts: dict[str, torch.Tensor]) -> torch.Tensor:
    return parts["policy"] + parts["value"] + OWNERSHIP_WEIGHT * parts["ownership"] + SCORE_WEIGHT * parts["score"]


@torch.no_grad()
def evaluate(model: MarGoNet, data: dict, device, batch_size: int = 1024) -> dict[str, float]:
    """Held-out losses, policy top-1 (full searches only) and the value's Brier score."""
    model.eval()
    n = len(data["value"])
    sums = {"policy": 0.0, "value": 0.0, "ownership": 0.0, "score": 0.0}
    top1 = targets = 0.0
    brier = 0.0
    for start in range(0, n, batch_size):
        index = np.arange(start, min(n, start + batch_size))
        batch = _batch(model, data, index, None, device)
        planes, policy, mask, value, _ownership, _score = batch
        policy_logits, value_logits, _, _ = model(planes)
        parts = losses(model, batch)
        for key in sums:
            weight = float(mask.sum()) if key == "policy" else len(index)
            sums[key] += float(parts[key]) * weight
        agree = (policy_logits.argmax(1) == policy.argmax(1)).float()
        top1 += float((agree * mask).sum())
        targets += float(mask.sum())
        probs = F.softmax(value_logits, dim=1)
        expected = probs[:, 0] + 0.5 * probs[:, 1]
        actual = torch.where(value == 0, 1.0, torch.where(value == 1, 0.5, 0.0))
        brier += float(((expected - actual) ** 2).sum())
    model.train()
    out = {key: value / (targets if key == "policy" else n) for key, value in sums.items()}
    out.update(policy_top1=top1 / max(targets, 1), value_brier=brier / n, positions=n)
    return out


def train(dataset: Dataset, encoding: str, size: int, *, blocks: int = 6, width: int = 32, steps: int = 2000,
          batch_size: int = 256, lr: float = 2e-3, seed: int = 0, device: str = "cpu", log=print,
          checkpoint: Path | None = None, checkpoint_every: int = 500,
          latest_share: float | None = None, initial: MarGoNet | None = None) -> tuple[MarGoNet, dict]:
    """Train a :class:`MarGoNet` for ``steps`` batches (AdamW, cosine decay); resumes from
    ``checkpoint`` when it exists and saves to it every ``checkpoint_every`` steps.

    ``latest_share`` draws that share of each batch from the last folder's positions (the
    newest generation, usually far fewer games than the ones before it); without it every
    training position is equally likely. ``initial`` (:func:`load_generation`) is the model
    to start from instead of a new one: its shape replaces ``blocks`` and ``width``."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = MarGoNet(encoding, size, blocks, width).to(device) if initial is None else initial.to(device)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda s: 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)))
    start = 0
    if checkpoint is not None and checkpoint.exists():
        state = torch.load(checkpoint, map_location=device, weights_only=False)
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        schedule.load_state_dict(state["schedule"])
        rng.bit_generator.state = state["rng"]
        torch.set_rng_state(state["torch_rng"])
        start = state["step"]
        log(f"resumed from {checkpoint} at step {start}")
    perms = symmetries(size)
    n = len(dataset.train["value"])
    began = time.perf_counter()
    running: dict[str, float] = {}
    model.train()
    for step in range(start, steps):
        if latest_share is None or dataset.latest_start in (0, n):
            index = rng.integers(0, n, batch_size)
        else:
            latest = rng.binomial(batch_size, latest_share)
            index = np.concatenate([rng.integers(dataset.latest_start, n, latest),
                                    rng.integers(0, dataset.latest_start, batch_size - latest)])
        symmetry = perms[rng.integers(0, 8)]
        parts = losses(model, _batch(model, dataset.train, index, symmetry, device))
        loss = _total(parts)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        schedule.step()
        for key, value in parts.items():
            value = float(value.detach())
            running[key] = 0.98 * running.get(key, value) + 0.02 * value
        if (step + 1) % 100 == 0 or step + 1 == steps:
            rate = (step + 1 - start) * batch_size / (time.perf_counter() - began)
            log(f"step {step + 1}/{steps}  " + "  ".join(f"{k} {v:.4f}" for k, v in running.items())
                + f"  {rate:.0f} positions/s")
        if checkpoint is not None and ((step + 1) % checkpoint_every == 0 or step + 1 == steps):
            _save_checkpoint(checkpoint, model, optimiser, schedule, rng, step + 1)
    report = {"steps": steps, "batch_size": batch_size, "train_positions": n, "seconds": time.perf_counter() - began}
    if dataset.test is not None:
        report["held_out"] = evaluate(model, dataset.test, device)
    return model, report


def _save_checkpoint(path: Path, model, optimiser, schedule, rng, step: int) -> None:
    state = {"model": model.state_dict(), "optimiser": optimiser.state_dict(), "schedule": schedule.state_dict(),
             "rng": rng.bit_generator.state, "torch_rng": torch.get_rng_state(), "step": step}
    files.replace_atomically(path, lambda temporary: torch.save(state, temporary))


def export_onnx(model: MarGoNet, path: Path, header: dict) -> None:
    """Write ``model`` as the engine's weights file: ONNX (opset 17, a dynamic batch) with
    the header (module doc) in its metadata."""
    import onnx

    model = model.to("cpu").eval()
    enc = encoding_for(model.encoding, model.size)
    example = torch.zeros(1, enc.channels, enc.grid, enc.grid)
    temporary = path.with_name(path.name + ".export")
    with warnings.catch_warnings():
        # the TorchScript exporter, on purpose: the newer one needs onnxscript, one more
        # dependency for the same graph; PyTorch warns that it is the older of the two
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(model, (example,), str(temporary), input_names=["planes"],
                          output_names=["policy", "value", "ownership", "score"],
                          dynamic_axes={name: {0: "batch"} for name in ("planes", "policy", "value", "ownership", "score")},
                          opset_version=17, dynamo=False)
    proto = onnx.load(str(temporary))
    temporary.unlink()
    meta = dict(header, format=NET_FORMAT, version=NET_VERSION, encoding=model.encoding, size=model.size,
                features_version=FEATURES_VERSION, features=FEATURES, blocks=model.blocks, width=model.width)
    for key, value in meta.items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value if isinstance(value, str) else json.dumps(value)
    files.write_atomically(path, proto.SerializeToString())


def _convolutions_with_norms(model: MarGoNet) -> list[tuple[nn.Conv2d, nn.BatchNorm2d]]:
    """Each convolution followed by a batch norm, in the order the forward pass runs them."""
    pairs = [(model.stem[0], model.stem[1])]
    for block in model.trunk:
        pairs += [(block.conv1, block.bn1), (block.conv2, block.bn2)]
    return pairs + [(model.policy_conv[0], model.policy_conv[1])]


def load_generation(path: Path, data: dict, device: str = "cpu", calibration: int = 2048) -> tuple[MarGoNet, dict]:
    """A :class:`MarGoNet` computing what the weights file ``path`` computes, to go on
    training from it (expert iteration: generation k+1 starts from generation k); returns
    it with the file's header.

    :func:`export_onnx` folds each batch norm into the convolution before it, so the file
    has a convolution with a bias where the model has a convolution and a batch norm. Each
    norm is given back as the statistics of its convolution's outputs on ``calibration``
    positions of ``data``, with the scale and shift that turn it into "add the folded
    bias": the function is the file's, and the first training batches, normalised by their
    own statistics, see about the same scale the file was trained at."""
    import onnx
    from onnx import numpy_helper

    from margo_gtp.players.net import load_net

    header, raw = load_net(path)  # NetError names the file for a missing, foreign or damaged one
    proto = onnx.load_model_from_string(raw)
    meta = header.meta
    model = MarGoNet(header.encoding, header.size, int(meta.get("blocks", 6)), int(meta.get("width", 32))).to(device)
    arrays = {entry.name: numpy_helper.to_array(entry).copy() for entry in proto.graph.initializer}
    for node in proto.graph.node:  # the exporter shares equal arrays (all-zero biases) through Identity nodes
        if node.op_type == "Identity" and node.input[0] in arrays:
            arrays[node.output[0]] = arrays[node.input[0]]
    state = model.state_dict()
    named = {key: value for key, value in arrays.items() if key in state}
    folded = [(arrays[node.input[1]], arrays[node.input[2]]) for node in proto.graph.node
              if node.op_type == "Conv" and node.input[1] not in state]
    pairs = _convolutions_with_norms(model)
    if len(folded) != len(pairs) or any(w.shape != tuple(c.weight.shape) for (w, _), (c, _) in zip(folded, pairs)):
        raise DatasetError(f"{path}: its layers do not match a {model.blocks}x{model.width} net")
    with torch.no_grad():
        for key, value in named.items():
            state[key].copy_(torch.as_tensor(value))
        biases = []
        for (weight, bias), (conv, norm) in zip(folded, pairs):
            conv.weight.copy_(torch.as_tensor(weight))
            biases.append(torch.as_tensor(bias, device=device))
            norm.weight.fill_(1.0)
            norm.bias.copy_(biases[-1])
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)  # so that sqrt(var + eps) is 1: the norm adds the bias
        outputs: dict[int, list[torch.Tensor]] = {i: [] for i in range(len(pairs))}
        hooks = [conv.register_forward_hook(lambda _m, _i, out, i=i: outputs[i].append(out.transpose(0, 1).flatten(1)))
                 for i, (conv, _) in enumerate(pairs)]
        model.eval()
        count = min(calibration, len(data["value"]))
        model(_batch(model, data, np.arange(count), None, device)[0])
        for hook in hooks:
            hook.remove()
        for i, (_, norm) in enumerate(pairs):
            values = torch.cat(outputs[i], dim=1)
            mean, variance = values.mean(dim=1), values.var(dim=1, unbiased=False)
            norm.running_mean.copy_(mean)
            norm.running_var.copy_(variance)
            norm.weight.copy_(torch.sqrt(variance + norm.eps))
            norm.bias.copy_(mean + biases[i])
    model.train()
    return model, meta


def held_out_numbers(chunks: int, held_out: float) -> set[int]:
    """Which of ``chunks`` chunks are held out: every k-th, so both parts span the whole run
    (none when ``held_out`` is 0 or there is one chunk)."""
    held = max(1, round(chunks * held_out)) if held_out > 0 and chunks > 1 else 0
    step = chunks / held if held else math.inf
    return {min(chunks - 1, int(i * step + step / 2)) for i in range(held)}


def held_out_paths(folder: Path, held_out: float) -> list[Path]:
    """The chunks :class:`Dataset` holds out, in order."""
    paths = list_chunks(folder)
    return [paths[i] for i in sorted(held_out_numbers(len(paths), held_out))]


def weights_metrics(folder: Path, size: int, weights: Path, held_out: float = 0.05) -> dict[str, float]:
    """A weights file's policy top-1 and value Brier score on the held-out positions,
    through ONNX Runtime as the engine runs it."""
    from margo_gtp.players.net import NetEvaluator

    evaluator = NetEvaluator(weights)
    top1 = targets = 0
    brier = 0.0
    positions = 0
    for path in held_out_paths(folder, held_out):
        chunk = read_chunk(path, size)
        policy, value, _, _ = evaluator.evaluate(chunk.unpacked_features(), chunk.globals)
        mask = chunk.policy_mask.astype(bool)
        top1 += int((policy.argmax(1) == chunk.policy.astype(np.float32).argmax(1))[mask].sum())
        targets += int(mask.sum())
        actual = np.choose(chunk.value.astype(np.int64), [1.0, 0.5, 0.0])
        brier += float(((value[:, 0] + 0.5 * value[:, 1] - actual) ** 2).sum())
        positions += len(chunk)
    return {"net_top1": top1 / max(targets, 1), "policy_targets": targets, "positions": positions,
            "net_brier": brier / max(positions, 1)}


def baseline_metrics(folder: Path, size: int, held_out: float = 0.05, playouts: int = 16, seed: int = 0,
                     limit: int | None = None) -> dict[str, float]:
    """Today's knowledge on the held-out positions of :class:`Dataset` (the same chunks):
    the heuristic priors' top-1 against the search's most visited move (full searches
    only), and the Brier score for the game's result of the search's leaf evaluator
    (``PLAYOUT_MOVES`` random moves, then the heuristic evaluator), once as the search
    calls it and as the mean of ``playouts`` calls. Replays the games (``played``, ``ply``)."""
    import random

    from margo_gtp.engine import Board, Colour, Rules
    from margo_gtp.players.mcts import MctsPlayer, playout
    from margo_gtp.players.net_features import move_index

    rng = random.Random(seed)
    priors = MctsPlayer(random.Random(seed))
    top1 = targets = 0
    brier_one = brier_mean = 0.0
    positions = 0
    for path in held_out_paths(folder, held_out):
        chunk = read_chunk(path, size)
        board = None
        for k in range(len(chunk)):
            if chunk.ply[k] == 0:
                board = Board(Rules(size=size))
            colour = board.to_move
            moves = board.legal_moves(colour)
            if chunk.policy_mask[k] and len(moves) > 1:
                rates = priors._prior_rates(board, moves, int(colour))
                best = moves[max(range(len(moves)), key=rates.__getitem__)]
                top1 += int(move_index(size, best) == int(np.argmax(chunk.policy[k])))
                targets += 1
            actual = {0: 1.0, 1: 0.5, 2: 0.0}[int(chunk.value[k])]
            results = [playout(board.copy(), rng) for _ in range(playouts)]
            if colour != Colour.WHITE:
                results = [1.0 - r for r in results]
            brier_one += (results[0] - actual) ** 2
            brier_mean += (sum(results) / len(results) - actual) ** 2
            positions += 1
            board.push(_move_of(board, int(chunk.played[k])), colour)
            if limit is not None and positions >= limit:
                break
        if limit is not None and positions >= limit:
            break
    return {"heuristic_top1": top1 / max(targets, 1), "policy_targets": targets, "positions": positions,
            "leaf_brier": brier_one / max(positions, 1), f"leaf_brier_mean{playouts}": brier_mean / max(positions, 1)}


def _move_of(board, index: int):
    from margo_gtp.engine import Move

    g = board.geometry
    if index == g.count:
        return Move.PASS
    if index == g.count + 1:
        return Move.SWAP
    return Move(g.points[index])
