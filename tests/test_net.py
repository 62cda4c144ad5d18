"""The policy/value network: its features, the dataset format, training and export, the
ONNX Runtime evaluator against PyTorch, the net search, and the refusals of bad input."""

from __future__ import annotations

import hashlib
import json
import os
import random
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.lab import netdata
from margo_gtp.lab.netgen import SelfPlaySettings, final_ownership, play_game
from margo_gtp.lab.nettrain import (MarGoNet, export_onnx, held_out_paths, load_dataset, load_generation,
                                    torch_planes, train)
from margo_gtp.players import PlayerSpecError, make_player
from margo_gtp.players.base import Budget
from margo_gtp.players.net import (NetError, NetEvaluator, NetPlayer, NetSearch, board_points, default_max_nodes,
                                   load_net, node_view)
from margo_gtp.players.net_features import (FEATURE_NAMES, FEATURES, encoding_for, global_features, move_index,
                                            point_features, symmetries)
from margo_gtp.players.restriction import MoveRestriction, MoveRule

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "margo_gtp" / "players" / "data"


def board_after(size: int, moves: str) -> Board:
    board = Board(Rules(size=size))
    for text in moves.split():
        board.push(Move.from_gtp(text, size))
    return board


def feature(board: Board, colour: Colour, name: str) -> list[str]:
    """The points where feature ``name`` is 1, as GTP vertices in the geometry's order."""
    row = point_features(board, colour)[FEATURE_NAMES.index(name)]
    return [Move(board.geometry.points[i]).gtp() for i in np.flatnonzero(row)]


# -- features ---------------------------------------------------------------------------


def test_features_of_a_small_position_are_relative_to_the_colour_to_move():
    board = board_after(3, "a1 b1 a2 b2")  # White a1 a2, Black b1 b2; White to move
    assert feature(board, Colour.WHITE, "own") == ["A1:1", "A2:1"]
    assert feature(board, Colour.WHITE, "other") == ["B1:1", "B2:1"]
    assert feature(board, Colour.BLACK, "own") == ["B1:1", "B2:1"]
    assert feature(board, Colour.WHITE, "legal") == ["C1:1", "C2:1", "A3:1", "B3:1", "C3:1", "A1:2"]
    assert feature(board, Colour.WHITE, "last") == ["B2:1"]
    assert feature(board, Colour.WHITE, "last2") == ["A2:1"]
    assert feature(board, Colour.WHITE, "own_1") == ["A1:1", "A2:1"]      # one freedom: A3
    assert feature(board, Colour.WHITE, "own_2") == []
    assert feature(board, Colour.WHITE, "other_3") == ["B1:1", "B2:1"]    # C1, C2, B3
    assert feature(board, Colour.BLACK, "other_1") == ["A1:1", "A2:1"]
    assert len(feature(board, Colour.WHITE, "on_board")) == 9 + 4 + 1
    assert global_features(board, Colour.WHITE).tolist() == [1.0, 0.0]
    assert global_features(board, Colour.BLACK).tolist() == [0.0, 0.0]


def test_the_two_encodings_put_each_point_at_its_cell():
    levels, doubled = encoding_for("levels", 4), encoding_for("doubled", 4)
    board = Board(Rules(size=4))
    index = board.geometry.index
    point = Move.from_gtp("B3:2", 4).point  # x=1, y=2, level 1
    assert levels.cells[index[point]].tolist() == [1, 2, 1]
    assert doubled.cells[index[point]].tolist() == [1, 5, 3]
    assert (levels.grid, levels.channels) == (4, FEATURES * 4 + 2)
    assert (doubled.grid, doubled.channels) == (7, FEATURES * 4 + 2)
    features = np.zeros((1, FEATURES, board.geometry.count), np.uint8)
    features[0, 0, index[point]] = 1
    planes = doubled.planes(features, np.array([[1.0, 0.25]], np.float32))
    assert planes.shape == (1, FEATURES * 4 + 2, 7, 7)
    assert np.argwhere(planes[0, :FEATURES * 4]).tolist() == [[1, 5, 3]]  # feature 0 of level 1 = channel 1
    assert (planes[0, -2] == 1.0).all() and (planes[0, -1] == 0.25).all()


def _turned(move: Move, size: int, k: int) -> Move:
    if move.point is None:
        return move
    perm = symmetries(size)[k]
    g = Board(Rules(size=size)).geometry
    return Move(g.points[perm[g.index[move.point]]])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.sampled_from([3, 4, 5]), seed=st.integers(0, 2**32 - 1), length=st.integers(0, 40),
       k=st.integers(0, 7))
def test_features_turn_with_the_board(size, seed, length, k):
    """Playing the turned moves gives the turned features: the 8 symmetries are exact."""
    rng = random.Random(seed)
    board, turned = Board(Rules(size=size)), Board(Rules(size=size))
    for _ in range(length):
        if board.is_game_over():
            break
        move = rng.choice(board.legal_moves())
        board.push(move)
        turned.push(_turned(move, size, k))
    perm = symmetries(size)[k]
    expected = np.zeros_like(point_features(board, board.to_move))
    expected[:, perm] = point_features(board, board.to_move)
    assert (point_features(turned, turned.to_move) == expected).all()


def test_symmetries_are_permutations_with_the_identity_first():
    perms = symmetries(5)
    assert perms.shape == (8, 55)
    assert perms[0].tolist() == list(range(55))
    assert all(sorted(p.tolist()) == list(range(55)) for p in perms)
    assert len({tuple(p) for p in perms}) == 8


# -- self-play and the dataset ----------------------------------------------------------


@pytest.fixture(scope="module")
def small_dataset(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("netdata")
    settings_ = SelfPlaySettings(size=5, visits=40, fast_visits=10, full_share=0.5, sample_plies=4)
    for number in range(4):
        game = play_game(settings_, number)
        netdata.write_chunk(netdata.chunk_path(folder, number), {"size": 5, "games": 1, "command": "test"}, game)
    return folder


def test_a_self_play_game_replays_from_its_moves_and_labels_both_colours(small_dataset):
    chunk = netdata.read_chunk(netdata.chunk_path(small_dataset, 0), 5)
    assert chunk.ply.tolist() == list(range(len(chunk)))
    board = Board(Rules(size=5))
    features = chunk.unpacked_features()
    for k in range(len(chunk)):
        assert (features[k] == point_features(board, board.to_move)).all()
        board.push(Move(board.geometry.points[chunk.played[k]]) if chunk.played[k] < 55 else Move.PASS)
    assert board.is_game_over()
    winner = board.outcome().winner
    movers = [Colour.WHITE if k % 2 == 0 else Colour.BLACK for k in range(len(chunk))]
    assert chunk.value.tolist() == [1 if winner is None else 0 if m == winner else 2 for m in movers]
    owner, margin = final_ownership(board)
    assert chunk.score[0] == margin and chunk.score[1] == -margin
    assert (chunk.ownership[0] == owner).all() and (chunk.ownership[1] == -owner).all()
    full = chunk.policy_mask.astype(bool)
    assert full.any()
    assert np.allclose(chunk.policy[full].astype(np.float32).sum(axis=1), 1.0, atol=2e-3)


def test_a_damaged_chunk_is_refused_naming_the_file(small_dataset, tmp_path):
    data = netdata.chunk_path(small_dataset, 1).read_bytes()
    truncated = tmp_path / "chunk-000000.npz"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(netdata.DatasetError, match=f"^{truncated}: not a readable margo-netdata chunk"):
        netdata.read_chunk(truncated)
    chunk = netdata.read_chunk(netdata.chunk_path(small_dataset, 1))
    arrays = {name: getattr(chunk, name) for name in netdata.ARRAYS}
    arrays["value"] = arrays["value"].copy()
    arrays["value"][0] ^= 2
    tampered = tmp_path / "chunk-000001.npz"
    np.savez(tampered, header=np.frombuffer(json.dumps(chunk.header).encode(), np.uint8), **arrays)
    with pytest.raises(netdata.DatasetError, match=f"^{tampered}: digest does not match its arrays"):
        netdata.read_chunk(tampered)
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, x=np.zeros(3))
    with pytest.raises(netdata.DatasetError, match=r"not a margo-netdata chunk \(missing header, features"):
        netdata.read_chunk(foreign)
    other = tmp_path / "chunk-000002.npz"
    np.savez(other, header=np.frombuffer(json.dumps(dict(chunk.header, features_version=99)).encode(), np.uint8),
             **arrays)
    with pytest.raises(netdata.DatasetError, match=f"^{other}: features of version 99, this program encodes version 1$"):
        netdata.read_chunk(other)
    with pytest.raises(netdata.DatasetError, match="positions of size 5, expected 7"):
        netdata.read_chunk(netdata.chunk_path(small_dataset, 1), 7)


def test_training_refuses_an_empty_folder_and_a_corrupt_chunk(tmp_path):
    script = ROOT / "scripts" / "net-train"
    empty = tmp_path / "empty"
    empty.mkdir()
    done = subprocess.run([sys.executable, str(script), "--data", str(empty), "--out", str(tmp_path / "n.onnx")],
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (2, f"net-train: {empty}: no dataset chunks (chunk-NNNNNN.npz) in it\n")
    (empty / "chunk-000000.npz").write_bytes(b"PK\x03\x04 not really")
    done = subprocess.run([sys.executable, str(script), "--data", str(empty), "--out", str(tmp_path / "n.onnx")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith(f"net-train: {empty / 'chunk-000000.npz'}: not a readable margo-netdata chunk")
    assert done.stderr.count("\n") == 1
    assert not (tmp_path / "n.onnx").exists()
    done = subprocess.run([sys.executable, str(script), "--data", str(empty), "--out", str(tmp_path / "no" / "n.onnx")],
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (2, f"net-train: --out {tmp_path / 'no' / 'n.onnx'}: its folder does not exist\n")


def test_training_refuses_an_out_or_checkpoint_that_is_a_pipe_before_it_trains(tmp_path):
    # both are renamed over their paths, which would replace a pipe or a device (as root,
    # /dev/zero itself) with a regular file: one line before the data is even read
    script = ROOT / "scripts" / "net-train"
    fifo = tmp_path / "n.onnx"
    os.mkfifo(fifo)
    for option in ("--out", "--checkpoint"):
        done = subprocess.run([sys.executable, str(script), "--data", str(tmp_path / "missing"),
                               "--out", str(tmp_path / "out.onnx"), option, str(fifo)],
                              capture_output=True, text=True, timeout=120)
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == f"net-train: {option} {fifo}: is a named pipe (FIFO), not a regular file\n"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and sorted(p.name for p in tmp_path.iterdir()) == ["n.onnx"]



def test_training_refuses_a_starting_generation_it_cannot_use(small_dataset, tmp_path):
    script = ROOT / "scripts" / "net-train"
    base = [sys.executable, str(script), "--data", str(small_dataset), "--size", "5", "--out", str(tmp_path / "n.onnx")]
    damaged = tmp_path / "damaged.onnx"
    damaged.write_bytes(b"\x08\x07 not a net")
    done = subprocess.run(base + ["--init", str(damaged)], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (
        2, f"net-train: --init {damaged}: not a readable ONNX weights file (truncated or damaged)\n")
    doubled = tmp_path / "doubled.onnx"
    export_onnx(MarGoNet("doubled", 5, blocks=1, width=8).eval(), doubled, {"command": "test", "data_digest": "none"})
    done = subprocess.run(base + ["--init", str(doubled)], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (
        2, f"net-train: --init {doubled}: a net of encoding doubled and size 5, not levels and 5\n")
    assert not (tmp_path / "n.onnx").exists()


# -- training, export, and ONNX Runtime against PyTorch ---------------------------------


def _random_net(encoding: str, size: int, seed: int) -> MarGoNet:
    torch.manual_seed(seed)
    model = MarGoNet(encoding, size, blocks=2, width=8)
    with torch.no_grad():  # batch-norm statistics away from their defaults, so folding them is tested
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
    return model.eval()


@pytest.mark.parametrize("encoding", ["levels", "doubled"])
def test_onnx_runtime_gives_pytorchs_outputs(encoding, tmp_path, small_dataset):
    model = _random_net(encoding, 5, seed=3)
    path = tmp_path / "net.onnx"
    export_onnx(model, path, {"command": "test", "data_digest": "none"})
    chunk = netdata.read_chunk(netdata.chunk_path(small_dataset, 2), 5)
    features, globals_ = chunk.unpacked_features()[:16], chunk.globals[:16]
    with torch.no_grad():
        expected = model(torch_planes(model, torch.as_tensor(features), torch.as_tensor(globals_)))
    policy, value, ownership, score = NetEvaluator(path).evaluate(features, globals_)
    assert np.abs(policy - expected[0].numpy()).max() < 1e-4
    assert np.abs(value - torch.softmax(expected[1], 1).numpy()).max() < 1e-4
    assert np.abs(ownership - expected[2].numpy()).max() < 1e-4
    assert np.abs(score - expected[3][:, 0].numpy()).max() < 1e-4
    assert policy.shape == (16, 55 + 2)


def test_a_generation_goes_on_training_from_the_function_its_weights_file_computes(tmp_path, small_dataset):
    """Expert iteration starts generation k+1 from generation k's ONNX file, whose batch
    norms were folded into the convolutions: the model rebuilt from it computes what the
    file computes, in eval mode and (on the positions its norms were measured on) in
    training mode too."""
    model = _random_net("levels", 5, seed=4)
    path = tmp_path / "generation-1.onnx"
    export_onnx(model, path, {"command": "test", "data_digest": "none"})
    dataset = load_dataset(small_dataset, 5, held_out=0.25)
    rebuilt, header = load_generation(path, dataset.train, calibration=64)
    assert (rebuilt.blocks, rebuilt.width, header["command"]) == (2, 8, "test")
    features, globals_ = dataset.train["features"][:64], dataset.train["globals"][:64]
    planes = torch_planes(rebuilt, torch.as_tensor(features), torch.as_tensor(globals_))
    policy, value, ownership, score = NetEvaluator(path).evaluate(features, globals_)
    for mode in ("eval", "train"):
        getattr(rebuilt, mode)()
        with torch.no_grad():
            out = rebuilt(planes)
        assert np.abs(policy - out[0].numpy()).max() < 1e-4, mode
        assert np.abs(value - torch.softmax(out[1], 1).numpy()).max() < 1e-4, mode
        assert np.abs(ownership - out[2].numpy()).max() < 1e-4, mode
        assert np.abs(score - out[3][:, 0].numpy()).max() < 1e-4, mode
    wider = tmp_path / "wider.onnx"
    export_onnx(MarGoNet("levels", 5, blocks=1, width=8).eval(), wider, {"command": "test", "data_digest": "none"})
    proto = onnx.load(str(wider))
    proto.metadata_props[-1].value = "2"  # the header's blocks (the last entry is width) no longer match its layers
    for entry in proto.metadata_props:
        if entry.key == "blocks":
            entry.value = "2"
    onnx.save(proto, str(wider))
    with pytest.raises(netdata.DatasetError, match=f"^{wider}: its layers do not match a 2x"):
        load_generation(wider, dataset.train)


def test_generations_are_split_one_folder_at_a_time(small_dataset, tmp_path):
    """Expert iteration trains on several generations' folders: each keeps its own held-out
    games, and one folder's digest is the one its weights' header already names."""
    later = tmp_path / "generation-2"
    later.mkdir()
    for number in range(3):
        source = netdata.chunk_path(small_dataset, number)
        (later / source.name).write_bytes(source.read_bytes())
    first, second = load_dataset(small_dataset, 5, 0.25), load_dataset(later, 5, 0.25)
    both = load_dataset([small_dataset, later], 5, 0.25)
    assert len(both.test["value"]) == len(first.test["value"]) + len(second.test["value"])
    assert len(both.train["value"]) == len(first.train["value"]) + len(second.train["value"])
    assert both.games == first.games + second.games == 7
    held = held_out_paths(small_dataset, 0.25) + held_out_paths(later, 0.25)
    assert sum(len(netdata.read_chunk(path, 5)) for path in held) == len(both.test["value"])
    digests = [netdata.read_chunk(path, 5).header["digest"] for path in netdata.list_chunks(small_dataset)]
    assert first.digest == hashlib.sha256("".join(digests).encode()).hexdigest()
    assert both.digest != first.digest
    assert both.latest_start == len(first.train["value"])
    lines: list[str] = []
    train(both, "levels", 5, blocks=1, width=8, steps=2, batch_size=16, seed=5, latest_share=0.5, log=lines.append)
    assert lines[-1].startswith("step 2/2  policy ")


def test_training_lowers_the_loss_and_resumes_from_its_checkpoint(small_dataset, tmp_path):
    dataset = load_dataset(small_dataset, 5, held_out=0.25)
    assert dataset.test is not None and len(dataset.test["value"]) > 0
    checkpoint = tmp_path / "ck.pt"
    lines: list[str] = []
    model, report = train(dataset, "levels", 5, blocks=1, width=8, steps=120, batch_size=32, seed=5,
                          checkpoint=checkpoint, log=lines.append)
    first = [float(line.split("policy ")[1].split()[0]) for line in lines if line.startswith("step ")]
    assert first[-1] < first[0]
    assert report["held_out"]["positions"] == len(dataset.test["value"])
    again: list[str] = []
    train(dataset, "levels", 5, blocks=1, width=8, steps=120, batch_size=32, seed=5, checkpoint=checkpoint,
          log=again.append)
    assert again == [f"resumed from {checkpoint} at step 120"]


# -- the weights file and the player ----------------------------------------------------


@pytest.fixture(scope="module")
def net5(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("net") / "net-5x5.onnx"
    export_onnx(_random_net("levels", 5, seed=1), path, {"command": "test", "data_digest": "none"})
    return path


def test_bad_weights_files_are_refused_in_one_line_naming_the_file(tmp_path, net5):
    missing = tmp_path / "missing.onnx"
    with pytest.raises(NetError, match=f"^{missing}: cannot read weights: No such file or directory$"):
        load_net(missing)
    with pytest.raises(NetError, match=f"^{tmp_path}: not a regular file$"):
        load_net(tmp_path)
    truncated = tmp_path / "truncated.onnx"
    truncated.write_bytes(net5.read_bytes()[:1000])
    with pytest.raises(NetError, match=f"^{truncated}: not a readable ONNX weights file \\(truncated or damaged\\)$"):
        load_net(truncated)
    import onnx

    proto = onnx.load(str(net5))
    foreign = tmp_path / "foreign.onnx"
    stripped = onnx.ModelProto()
    stripped.CopyFrom(proto)
    del stripped.metadata_props[:]
    foreign.write_bytes(stripped.SerializeToString())
    with pytest.raises(NetError, match=f"^{foreign}: not a margo-net weights file \\(no 'margo-net' header\\)$"):
        load_net(foreign)
    for key, value, message in (("version", "2", "margo-net version 2, this program reads 1"),
                                ("encoding", "hexagons", "unknown encoding 'hexagons' \\(known: levels, doubled\\)"),
                                ("features_version", "7", "features of version 7, this program encodes 1")):
        changed = onnx.ModelProto()
        changed.CopyFrom(proto)
        for entry in changed.metadata_props:
            if entry.key == key:
                entry.value = value
        path = tmp_path / f"{key}.onnx"
        path.write_bytes(changed.SerializeToString())
        with pytest.raises(NetError, match=f"^{path}: {message}$"):
            load_net(path)


def test_the_net_spec_refuses_bad_options_and_files(tmp_path):
    with pytest.raises(PlayerSpecError, match=f"^player 'net': {tmp_path / 'x.onnx'}: cannot read weights"):
        make_player(f"net:weights={tmp_path / 'x.onnx'}")
    with pytest.raises(PlayerSpecError, match="^unknown option for player 'net': 'c'"):
        make_player("net:c=2")
    with pytest.raises(PlayerSpecError, match="^player option threads"):
        make_player("net:threads=0")
    with pytest.raises(PlayerSpecError, match="^player option playouts"):
        make_player("net:playouts=0")
    with pytest.raises(PlayerSpecError, match="^player option max_nodes"):
        make_player("net:max_nodes=0")


def test_margo_gtp_refuses_a_missing_weights_file_in_one_line(tmp_path):
    exe = Path(sys.executable).with_name("margo-gtp")
    done = subprocess.run([str(exe), "--player", f"net:weights={tmp_path / 'none.onnx'}"], input="", text=True,
                          capture_output=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and f"{tmp_path / 'none.onnx'}: cannot read weights" in done.stderr


def test_the_search_counts_every_simulation_and_plays_legal_moves(net5):
    search = NetSearch(NetEvaluator(net5), batch=4)
    board = board_after(5, "c3 b2")
    root = search.search(board, board.to_move, playouts=97)
    assert search.last_simulations == 97
    assert int(root.child_n.sum()) == root.n - 1 == 97  # the root's own evaluation is its first visit
    assert root.moves == board.legal_moves(board.to_move)
    assert np.isclose(root.prior.sum(), 1.0)
    threaded = NetSearch(NetEvaluator(net5), batch=4, threads=3)
    root = threaded.search(board, board.to_move, playouts=101)
    assert threaded.last_simulations == 101
    assert int(root.child_n.sum()) == root.n - 1 == 101  # no visit lost or counted twice, no virtual loss left
    player = NetPlayer([net5], random.Random(0))
    for _ in range(6):
        colour = board.to_move
        move = player.select_move(board, colour, Budget(playouts=30))
        assert board.is_legal(move, colour)
        board.push(move, colour)
        player.notify(board, move, colour)


@pytest.mark.parametrize("threads", [1, 3])
def test_a_search_without_limits_stops_at_the_trees_cap(threads):
    """Pondering and an endless analysis search with no budget: the tree's cap (each
    simulation adds at most one node) ends them instead of growing the process for ever."""
    search = NetSearch(WhiteLeadsBy(0.0), batch=8, threads=threads, max_nodes=61)
    board = board_after(5, "c3 b2")
    root = search.search(board, board.to_move)  # no playouts, no deadline, no stop
    assert root.n == 61 and search.last_simulations == 60  # the root's own evaluation is its first visit
    kept = search.search(board, board.to_move)  # the kept tree is full: nothing more is added
    assert kept is root and root.n == 61 and search.last_simulations == 0
    assert NetSearch(WhiteLeadsBy(0.0)).max_nodes == default_max_nodes(5) > 100_000


class WhiteLeadsBy:
    """A stand-in for NetEvaluator on 5x5: a uniform policy, even chances, and a score head
    saying that White leads by ``lead`` points, whoever is to move (the head predicts own
    minus other over the board's points, so it is +lead/55 for White, -lead/55 for Black)."""

    size = 5

    def __init__(self, lead: float) -> None:
        self.lead = lead

    def evaluate(self, features, globals_):
        batch, points = len(features), board_points(5)
        white_to_move = globals_[:, 0]
        score = (2 * white_to_move - 1) * self.lead / points
        return (np.zeros((batch, points + 2), np.float32), np.tile([0.4, 0.2, 0.4], (batch, 1)),
                np.zeros((batch, points), np.float32), score)


@pytest.mark.parametrize("threads", [1, 3])
def test_the_net_search_backs_up_the_score_heads_points_for_each_mover(threads):
    search = NetSearch(WhiteLeadsBy(6.0), batch=4, threads=threads)
    board = board_after(5, "c3 b2")  # White to move
    tree = search.search(board, board.to_move, playouts=80)
    root = node_view(tree, board.to_move)
    assert root.scored == 81 and root.score_mean() == pytest.approx(-6.0)  # for Black, who moved into the root
    visited = [child for child in root.children if child.n]
    assert sum(child.scored for child in root.children) == 80 and len(visited) > 1
    for child in visited:  # White's moves: White still leads by 6, with no spread
        assert child.score_mean() == pytest.approx(6.0) and child.score_stdev() == pytest.approx(0.0, abs=1e-6)
        if child.children:
            assert child.children[0].score_mean() == pytest.approx(-6.0)  # Black's reply


def test_the_net_search_leaves_out_the_root_moves_not_allowed():
    search = NetSearch(WhiteLeadsBy(0.0), batch=4)
    board = board_after(5, "c3 b2")
    allowed = {Move.from_gtp("a1", 5), Move.from_gtp("e5", 5), Move.from_gtp("c3", 5)}  # c3 is taken
    restriction = MoveRestriction.only_at_root(board.to_move, allowed)
    tree = search.search(board, board.to_move, playouts=30, restriction=restriction)
    assert tree.moves == [Move.from_gtp("a1", 5), Move.from_gtp("e5", 5)]
    assert tree.prior.tolist() == [0.5, 0.5] and int(tree.child_n.sum()) == 30
    tree = search.search(board, board.to_move, playouts=10)  # the next search without: every move, a fresh tree
    assert tree.moves == board.legal_moves(board.to_move) and tree.n == 11


def net_expansions(tree, board: Board):
    """Each expanded node of a net search's tree as (depth, mover, legal moves, its moves,
    its priors), its position replayed from ``board``."""
    out, stack = [], [(tree, board, 0)]
    while stack:
        node, position, depth = stack.pop()
        if node.prior is None:
            continue
        mover = Colour(node.to_move)
        out.append((depth, mover, position.legal_moves(mover), node.moves, node.prior))
        for move, child in zip(node.moves, node.children):
            if child is not None:
                after = position.copy()
                after.push(move, mover)
                stack.append((child, after, depth + 1))
    return out


@pytest.mark.parametrize("threads", [1, 2])
def test_the_net_search_leaves_moves_out_to_the_depth_asked_for_that_player_only(threads):
    """Black (to move) may not play the left half for three plies, White the top row for
    two: each node expanded within those depths has exactly the legal moves left to its
    mover, their policy renormalised; the mover's plies keep the other's moves."""
    board = board_after(5, "c3 b2")
    me, you = board.to_move, board.to_move.opponent
    left = frozenset(Move.from_gtp(f"{c}{r}", 5) for c in "ab" for r in range(1, 6))
    top = frozenset(Move.from_gtp(f"{c}5", 5) for c in "abcde")
    restriction = MoveRestriction((MoveRule(me, left, 3), MoveRule(you, top, 2)))
    search = NetSearch(WhiteLeadsBy(0.0), batch=4, threads=threads)
    tree = search.search(board, me, playouts=400, restriction=restriction)
    assert int(tree.child_n.sum()) == 400
    seen = set()
    for depth, mover, legal, moves, prior in net_expansions(tree, board):
        assert moves == restriction.moves_at(legal, mover, depth)
        assert prior.sum() == pytest.approx(1.0) and len(set(prior.round(9))) == 1  # uniform policy, renormalised
        if depth < (3 if mover == me else 2):
            assert not set(moves) & (left if mover == me else top) and len(moves) < len(legal)
        else:
            assert len(moves) == len(legal)
        seen.add((depth, mover == me))
    assert {(0, True), (1, False), (2, True), (3, False)} <= seen
    # a node where the restriction leaves no move is a leaf scored by its value: allow only a1
    only = MoveRestriction((MoveRule(me, frozenset({Move.from_gtp("a1", 5)}), 3, allow=True),))
    tree = search.search(board, me, playouts=60, restriction=only)
    assert tree.moves == [Move.from_gtp("a1", 5)] and int(tree.child_n.sum()) == 60
    replies = [child for child in tree.children[0].children if child is not None]
    assert replies and all(child.terminal == 0.5 and child.prior is None for child in replies)


def test_a_size_without_a_net_plays_mcts_and_says_so_once(net5, capsys):
    player = NetPlayer([net5], random.Random(0))
    board = Board(Rules(size=4))
    for _ in range(2):
        colour = board.to_move
        move = player.select_move(board, colour, Budget(playouts=20))
        board.push(move, colour)
        player.notify(board, move, colour)
    assert capsys.readouterr().err == "net: no network for 4x4 (weights for 5x5): playing mcts instead\n"


def test_the_shipped_weights_load_with_their_header():
    for size in (7, 9):
        header, _ = load_net(SHIPPED / f"net-{size}x{size}.onnx")
        assert (header.size, header.encoding, header.meta["format"]) == (size, "levels", "margo-net")
        assert header.meta["command"].startswith("scripts/net-train --data")
        assert len(header.meta["data_digest"]) == 64
    assert move_index(9, Move.PASS) == 285 and move_index(9, Move.SWAP) == 286


def test_margo_analyze_shows_the_net_search_with_the_policy_as_prior(net5):
    """A net session's analysis is its own search: visits of the net tree, and each move's
    prior is the policy's probability (they sum to at most 1), not a heuristic win rate."""
    from margo_gtp.engine import Rules as _Rules
    from margo_gtp.protocol.analysis import install, parse_info
    from margo_gtp.protocol.session import make_gtp_engine

    player = NetPlayer([net5], random.Random(0), playouts=60)
    engine = make_gtp_engine(player, _Rules(size=5))
    session = engine.session
    install(engine, session)
    assert engine.run_command("play", ["w", "c3"])[0] is False
    assert engine.run_command("genmove", ["b"])[0] is False
    lines = []
    stream = engine.run_command("margo-analyze_snapshot", ["w", "10"])[1]
    stream.run(lines.append, lambda: False)
    infos = [parse_info(line) for line in lines]
    assert infos and all(info["move"] for info in infos)
    assert [int(info["order"]) for info in infos] == list(range(len(infos)))
    visits = [int(info["visits"]) for info in infos]
    assert visits == sorted(visits, reverse=True) and visits[0] > 0
    assert sum(float(info["prior"]) for info in infos) <= 1.0 + 1e-9
    root = player.root
    assert {child.move.gtp() for child in root.children if child.n} >= {info["move"] for info in infos}


def test_net_selfplay_resumes_and_refuses_other_options_on_its_folder(tmp_path):
    script = ROOT / "scripts" / "net-selfplay"
    out = tmp_path / "data"
    base = [sys.executable, str(script), "--out", str(out), "--size", "4", "--visits", "8", "--fast-visits", "4",
            "--games-per-chunk", "1"]
    first = subprocess.run([*base, "--chunks", "2"], capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    assert "net-selfplay: 2 games" in first.stdout
    before = {p.name: p.stat().st_mtime_ns for p in out.glob("chunk-*.npz")}
    assert sorted(before) == ["chunk-000000.npz", "chunk-000001.npz"]
    again = subprocess.run([*base, "--chunks", "3"], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "net-selfplay: 1 games" in again.stdout
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("chunk-*.npz") if p.name in before} == before
    other = subprocess.run([*base[:-4], "--visits", "9", "--fast-visits", "4", "--games-per-chunk", "1", "--chunks", "3"],
                           capture_output=True, text=True, timeout=300)
    assert (other.returncode, other.stderr) == (
        2, f"net-selfplay: {out} holds a run with other options ({out / 'run.json'}); use another --out\n")
    chunks = [netdata.read_chunk(p, 4) for p in sorted(out.glob("chunk-*.npz"))]
    assert [c.header["chunk"] for c in chunks] == [0, 1, 2]


def test_net_selfplay_writes_the_referees_results_and_never_loses_or_repeats_a_game(tmp_path):
    """Each game is a results.jsonl line as margo-match writes it (read by the referee's
    reader and summary); a run killed after a chunk's lines but before the chunk plays the
    chunk again and keeps the lines it had, once each; a torn last line is no game."""
    from margo_gtp.match.results_log import load_records
    from margo_gtp.match.stats import is_game_record, summarize_match

    out = tmp_path / "data"
    base = [sys.executable, str(ROOT / "scripts" / "net-selfplay"), "--out", str(out), "--size", "4", "--visits", "8",
            "--fast-visits", "4", "--games-per-chunk", "2", "--chunks", "2"]
    first = subprocess.run(base, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    records = load_records(out)
    assert [record["game"] for record in records] == [1, 2, 3, 4] and all(map(is_game_record, records))
    assert [(record["engine_a"], record["engine_b"], record["a_colour"]) for record in records] == [
        ("mcts", "mcts", "W"), ("mcts", "mcts", "B")] * 2
    assert sorted(p.name for p in out.glob("game-*.sgf")) == [f"game-000{n}.sgf" for n in (1, 2, 3, 4)]
    chunks = [netdata.read_chunk(p, 4) for p in sorted(out.glob("chunk-*.npz"))]
    assert [c.ply.tolist().count(0) for c in chunks] == [2, 2]  # two games a chunk
    assert sum(len(c.ply) for c in chunks) == sum(record["move_count"] for record in records)
    assert summarize_match(records, {"A": "mcts", "B": "mcts"})["games"] == 4
    lines = (out / "results.jsonl").read_bytes()
    (out / "chunk-000001.npz").unlink()  # killed after chunk 1's lines were written, before the chunk
    with open(out / "results.jsonl", "ab") as log:
        log.write(b'{"game":5,"engine_a":"mc')  # and a torn line after them
    again = subprocess.run(base, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "net-selfplay: 2 games" in again.stdout, again.stderr
    assert (out / "results.jsonl").read_bytes() == lines  # the torn line cut, no game written twice
    assert (out / "chunk-000001.npz").exists()


def test_net_selfplay_refuses_an_out_that_is_not_a_folder(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    for out in (afile, Path("/dev/null")):
        done = subprocess.run([sys.executable, str(ROOT / "scripts" / "net-selfplay"), "--out", str(out), "--chunks", "1"],
                              capture_output=True, text=True, timeout=120)
        assert (done.returncode, done.stderr) == (2, f"net-selfplay: --out {out}: not a folder\n")
    assert afile.read_text() == "x"


def test_net_selfplay_refuses_damaged_weights_in_one_line_before_touching_its_folder(tmp_path):
    """Found by scripts/hostile-pass: a damaged --player weights file was a traceback from
    the first game, after run.json was written."""
    weights = tmp_path / "damaged.onnx"
    weights.write_bytes(b"garbage")
    out = tmp_path / "data"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "net-selfplay"), "--out", str(out), "--chunks", "1",
                           "--player", f"net:weights={weights}"], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (
        2, f"net-selfplay: --player: player 'net': {weights}: not a readable ONNX weights file (truncated or damaged)\n")
    assert not out.exists()


def test_net_plays_by_its_temperature_over_the_roots_visits(net5):
    """net:temperature=T draws the move by the root's visits ** (1/T), as mcts does
    (searcher.choose_by_visits); 0 is the most visited move."""
    board = board_after(5, "c3 b2")
    for temperature in (0, 1):
        player = make_player(f"net:weights={net5},playouts=60,temperature={temperature}", seed=4)
        assert player.temperature == temperature
        tree = player.searches[5]
        root = tree.search(board, board.to_move, playouts=60)
        tree.search = lambda *args, **kwargs: root  # the same tree for every choice
        chosen = {player.select_move(board, board.to_move, Budget(playouts=60)) for _ in range(30)}
        most = root.moves[int(np.argmax(root.child_n))]
        if temperature == 0:
            assert chosen == {most}
        else:
            visited = {move for move, visits in zip(root.moves, root.child_n) if visits > 0}
            assert len(chosen) > 1 and chosen <= visited
    with pytest.raises(PlayerSpecError, match=r"^player option temperature must be a finite number >= 0: '-1'$"):
        make_player(f"net:weights={net5},temperature=-1")
