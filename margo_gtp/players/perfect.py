"""The ``perfect`` player: perfect play on the boards a proof is shipped for.

It plays the strategy of the shipped proof (``data/proofs/proof-NxN.txt``, written by
:mod:`.proof`, checked by :mod:`.proof_check` when first loaded): as White the strategy that
keeps White's margin at least the value, as Black the one that holds White to at most it.
A tree proof (2x2) is followed move by move; a compact proof (3x3, :mod:`.compact_check`)
gives the move of the position, by its rules, for as long as every earlier move of the
player's colour was the strategy's (then the checked walk holds this very history). Where
the game leaves the strategy (the other side played a move the proof's side does not need
to answer, the proof's side is the one that must do better, or its colour's moves were
not the strategy's), it solves the position on the fly with the exact solver
(:mod:`.solver`), the real game's history included.

On 4x4 no whole proof is shipped (White's strategy alone runs to millions of rules); the
*book* (``data/proofs/book-4x4.json``, written by ``scripts/solve-pn --book``) holds the
proven tree's moves for White, the side that wins, at the top of the game, and below it the
solver settles "does White still win, and by which move?" at each of White's turns (every
book leaf was settled by it within 100,000 nodes), by proof-number search over the solver.
``scripts/solve-pn --proof`` writes the whole strategy these moves make and checks it
independently (docs/solving.md). As Black, or where White's earlier moves were not the
book's, it plays a move proven to win within :data:`SOLVE_NODES` nodes, else
:mod:`.mcts`'s move.

On any other size, other rules, a set-up position or after a swap it refuses with one line
(:class:`~margo_gtp.players.base.PlayerRefusal`) that names what it supports.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from margo_gtp.engine.python_core import PythonCore
from margo_gtp.engine.rules import Rules
from margo_gtp.engine.types import WHITE, Move
from margo_gtp.players.base import Budget, PlayerRefusal
from margo_gtp.players.compact_check import FORMAT as COMPACT_FORMAT
from margo_gtp.vertex import parse_vertex

if TYPE_CHECKING:
    from margo_gtp.engine import Board, Colour

__all__ = ["BOOK_SIZES", "PROOF_SIZES", "PerfectPlayer", "SHIPPED_SIZES", "make_perfect"]

PROOFS = Path(__file__).resolve().parent / "data" / "proofs"
#: The sizes with a whole proof of the exact margin (2x2, 3x3), and those with a book only (4x4).
PROOF_SIZES = tuple(sorted(int(path.stem.split("-")[1].split("x")[0]) for path in PROOFS.glob("proof-*x*.txt")))
BOOK_SIZES = tuple(sorted(int(path.stem.split("-")[1].split("x")[0]) for path in PROOFS.glob("book-*x*.json")))
SHIPPED_SIZES = tuple(sorted({*PROOF_SIZES, *BOOK_SIZES}))
#: Where no book or proof answers, the solver's nodes for a move that keeps the mover's win
#: (a few seconds); past them, mcts's move.
SOLVE_NODES = 3_000_000
#: The solver's nodes for White below the book, where the position is a proven win (each
#: book leaf was settled within 100,000 nodes with a warm table; from a cold one a
#: proof-number search took up to a few million): a guard for a referee's move time.
BOOK_SOLVE_NODES = 15_000_000
#: The nodes of each leaf of that search (what settled the book's leaves); scripts/oracle's too.
LEAF_NODES = 100_000


def supported_words() -> str:
    names = [f"{size}x{size}" for size in SHIPPED_SIZES]
    sizes = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    return f"perfect plays {sizes} under the default rules only (the sizes with a shipped proof or book)"


@lru_cache(maxsize=None)
def strategy(size: int) -> tuple[dict, dict]:
    """The proof's two strategies, White's and Black's: nested dicts {vertex text: subtree}
    (a tree proof), or {position: [Rule]} (a compact proof, :mod:`.compact_check`)."""
    from margo_gtp.players.proof_check import check_proof

    path = PROOFS / f"proof-{size}x{size}.txt"
    check_proof(path)
    text = path.read_text()
    if text.startswith(f"format: {COMPACT_FORMAT}\n"):
        return _compact_strategies(size, text, os.fspath(path))
    trees: list[dict] = []
    stack: list[dict] = []
    for line in text.split("\n"):
        if line.startswith("tree "):
            trees.append({})
            stack = [trees[-1]]
        elif line and line[0].isdigit():
            depth, vertex = line.split(" ")
            del stack[int(depth):]
            stack[-1][vertex] = {}
            stack.append(stack[-1][vertex])
    return trees[0], trees[1]


@lru_cache(maxsize=None)
def book(size: int) -> tuple[str, dict[str, str]]:
    """The shipped book of ``size``: the side it proves a win for ("white" or "black") and its
    moves, by the game's line (vertices, space-separated; "" for the empty board)."""
    from margo_gtp.textfile import read_text

    path = PROOFS / f"book-{size}x{size}.json"
    data = json.loads(read_text(path, 16 * 1024 * 1024))
    if (data.get("format"), data.get("rules"), data.get("size"), data.get("claim")) != ("margo-book 1", "default",
                                                                                      size, 1):
        raise ValueError(f"{path}: not a margo-book 1 of a {size}x{size} win under the default rules")
    return data["prover"], data["moves"]


def _compact_strategies(size: int, text: str, where: str) -> tuple[dict, dict]:
    from margo_gtp.players.compact_check import parse_rules

    lines = list(enumerate(text.split("\n"), start=1))
    headings = [k for k, (_, line) in enumerate(lines) if line.startswith("strategy ")]
    end = next(k for k, (_, line) in enumerate(lines) if line == "end")
    return (parse_rules(lines[headings[0] + 1:headings[1]], size, where),
            parse_rules(lines[headings[1] + 1:end], size, where))


def _compact_move(board: "Board", colour: "Colour", rules: dict) -> Move | None:
    """The compact strategy's move for ``colour``, if the game has followed it so far (each of
    ``colour``'s moves was the strategy's: then the checked walk holds this history)."""
    core = PythonCore(board.rules)
    mover = 0 if colour is WHITE else 1

    def rule_move() -> Move | None:
        position = (core._balls[0], core._balls[1], core._to_move)
        for rule in rules.get(position, ()):
            if all(key in core._position_count for key in rule.needs):
                return Move(rule.point)
        return None

    for move in board.move_stack:
        if core._to_move == mover and rule_move() != move:
            return None
        core.push(move)
    move = rule_move()
    return move if move is not None and core.is_legal(move) else None


class PerfectPlayer:
    """See the module docstring."""

    name = "perfect"

    def __init__(self) -> None:
        self._solvers: dict[int, object] = {}
        self._fallback = None  # mcts, for 4x4 positions the solver does not settle

    def _check(self, board: "Board") -> None:
        if board.size not in SHIPPED_SIZES:
            raise PlayerRefusal(f"{supported_words()}, not {board.size}x{board.size}")
        # compared as options, where max_level is the effective top level: the referee sends
        # max_level=2 for 3x3's default, which the Rules object keeps as 2, not None
        if board.rules.options() != Rules(size=board.size).options():
            raise PlayerRefusal(f"{supported_words()}, not these rules")
        if board.root_balls() or board.swapped or any(move.kind != "place" for move in board.move_stack):
            raise PlayerRefusal(f"{supported_words()}, from the empty board with placements only")

    def select_move(self, board: "Board", colour: "Colour", budget: Budget) -> Move:
        self._check(board)
        if board.size in BOOK_SIZES:
            return self._book_move(board, colour, budget)
        white_tree, black_tree = strategy(board.size)
        node: dict | None = white_tree if colour is WHITE else black_tree
        if node and isinstance(next(iter(node)), tuple):  # a compact proof: rules by position
            move = _compact_move(board, colour, node)
            return move if move is not None else self._solve(board)
        for move in board.move_stack:
            node = node.get(move.gtp()) if node is not None else None
        if node is not None and len(node) == 1:
            return Move(parse_vertex(next(iter(node)), board.size))
        return self._solve(board)

    def _solver(self, size: int):
        from margo_gtp.players.solver import ExactSolver

        solver = self._solvers.get(size)
        if solver is None:
            solver = self._solvers[size] = ExactSolver(size)
        return solver

    def _solve(self, board: "Board") -> Move:
        solver = self._solver(board.size)
        line = [solver.code_of(move.point) for move in board.move_stack]
        _, best = solver.exact(line)
        return Move(solver.point_of(best))

    def _book_move(self, board: "Board", colour: "Colour", budget: Budget) -> Move:
        """4x4: the book's move while White has followed it, else a move the solver proves
        wins (within a node limit), else mcts's."""
        prover, moves = book(board.size)
        mine = (prover == "white") == (colour is WHITE)
        played = list(board.move_stack)
        # every earlier move of the book's side was the book's where it has one (below the book's
        # leaves it has none: those were the solver's, which keep the win)
        on_book = mine and all(moves.get(" ".join(move.gtp() for move in played[:ply]), played[ply].gtp())
                               == played[ply].gtp()
                               for ply in range(len(played)) if (ply % 2 == 0) == (prover == "white"))
        if on_book:
            text = moves.get(" ".join(move.gtp() for move in played))
            if text is not None:
                return Move(parse_vertex(text, board.size))
        move = self._winning_move(board, BOOK_SOLVE_NODES if on_book else SOLVE_NODES)
        if move is not None:
            return move
        if self._fallback is None:
            from margo_gtp.players import make_player

            self._fallback = make_player("mcts")
        return self._fallback.select_move(board, colour, budget)

    def _winning_move(self, board: "Board", nodes: int) -> Move | None:
        """A move that wins for the side to move, proven within ``nodes`` solver nodes, or None.
        Proof-number search over the solver (:mod:`.proof_number`, 100,000 nodes a leaf): on
        4x4 the plain solver took more than a minute below the book where this took 2e6 nodes."""
        from margo_gtp.players.proof_number import ProofNumberSearch

        solver = self._solver(board.size)
        line = tuple(solver.code_of(move.point) for move in board.move_stack)
        start = solver.nodes
        mover = len(line) % 2
        search = ProofNumberSearch(solver, line, mover, 1, min(LEAF_NODES, nodes))
        search.run(lambda: solver.nodes - start >= nodes)
        code = search.proven_move()
        return None if code is None else Move(solver.point_of(code))

    def notify(self, board: "Board", move: "Move", colour: "Colour") -> None:
        """The game's line is read from the board at each move: nothing to follow."""

    def reset(self, board: "Board") -> None:
        """Nothing kept between games but the solver's table."""


def make_perfect(options: dict[str, str], seed: int | None) -> PerfectPlayer:
    from margo_gtp.players import PlayerSpecError

    if options:
        raise PlayerSpecError(f"unknown option(s) for player 'perfect': {', '.join(sorted(options))}")
    return PerfectPlayer()
