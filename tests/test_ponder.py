"""Pondering (``margo-gtp --ponder``): the background search runs between commands, stops
when a command arrives, and its tree is reused by the next move. No timing assertions:
each test waits for a *condition* (visits grown), then checks answers and tree identity."""

from __future__ import annotations

import io
import os
import queue
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.players import make_player
from margo_gtp.players.mcts import MctsPlayer
from margo_gtp.protocol.gtp import run_gtp_session
from margo_gtp.protocol.ponder import Ponderer, make_ponderer
from margo_gtp.protocol.session import make_gtp_engine


class _Lines(io.TextIOBase):
    """A write-only text stream whose complete responses land in a queue."""

    def __init__(self) -> None:
        self.responses: queue.Queue[str] = queue.Queue()
        self._buffer = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._buffer += text
        while "\n\n" in self._buffer:
            response, self._buffer = self._buffer.split("\n\n", 1)
            self.responses.put(response)
        return len(text)


class PonderingSession:
    """``run_gtp_session`` with a ponderer in a thread; ``ask`` writes one line to its pipe."""

    def __init__(self, player: MctsPlayer, size: int = 5) -> None:
        self.engine = make_gtp_engine(player, Rules(size=size))
        self.session = self.engine.session
        self.player = player
        self.ponderer = Ponderer(self.session)
        read_fd, self._write_fd = os.pipe()
        self._src = os.fdopen(read_fd, "r", encoding="utf-8")
        self.out = _Lines()
        self.thread = threading.Thread(
            target=run_gtp_session, args=(self.engine, self._src, self.out), kwargs={"idle": self.ponderer})
        self.thread.start()

    def ask(self, line: str) -> str:
        os.write(self._write_fd, (line + "\n").encode())
        return self.out.responses.get(timeout=60)

    def wait_for_visits(self, visits: int) -> None:
        """Wait (a condition, not a timing) until the ponder search has grown the tree."""
        while True:
            root = self.player.root
            if self.ponderer.running and root is not None and root.n >= visits:
                return
            time.sleep(0.01)

    def close(self) -> None:
        os.close(self._write_fd)
        self.thread.join(timeout=60)
        self._src.close()


def test_a_command_mid_ponder_is_answered_and_the_tree_is_reused() -> None:
    player = MctsPlayer(random.Random(4), playouts=30)
    engine = PonderingSession(player)
    try:
        first = engine.ask("genmove w")
        assert first.startswith("= ")
        engine.wait_for_visits(200)  # pondering Black's move, far beyond genmove's 30
        ponder_root = player.root
        reply = max(ponder_root.children, key=lambda child: child.n)
        visits_below = reply.n
        assert engine.ask(f"play b {reply.move.gtp()}") == "="
        # At most 30 of the root's 200 visits came from genmove's own search.
        assert engine.ponderer.searches >= 1 and engine.ponderer.simulations >= 200 - 30
        # notify kept the subtree the ponder search grew below Black's move.
        assert player.root is reply and reply.n >= visits_below
        second = engine.ask("genmove w")
        move = Move.from_gtp(second[2:], 5)
        board = Board(Rules(size=5))
        board.push(Move.from_gtp(first[2:], 5), Colour.WHITE)
        board.push(reply.move, Colour.BLACK)
        assert board.is_legal(move, Colour.WHITE)
        # The position answered is the game's, not the ponder thread's copy.
        assert engine.ask("margo-to_move") == "= B"
        assert engine.ask("quit") == "="
    finally:
        engine.close()
    assert not engine.thread.is_alive() and not engine.ponderer.running


def test_the_default_player_ponders_with_the_net_and_its_next_move_reuses_the_tree() -> None:
    """margo-gtp's default, ``strongest``, is the net on 7x7: the ponder search is the session
    player's own, so it grows the net's tree, and after the opponent's move the net's next
    search starts from the subtree pondering grew below it."""
    from margo_gtp.players.net import NetPlayer

    player = make_player("strongest", seed=1)
    assert isinstance(player, NetPlayer)
    player.playouts = 30  # genmove's own search: far below what pondering adds
    tree = player.search_for(Board(Rules(size=7)))
    engine = PonderingSession(player, size=7)
    try:
        first = engine.ask("genmove w")
        assert first.startswith("= ")
        while not (engine.ponderer.running and tree.root is not None and tree.root.n >= 200):
            time.sleep(0.01)  # a condition, not a timing: the net's tree grown by pondering Black's move
        root = tree.root
        best = int(root.child_n.argmax())
        reply, kept = root.moves[best], root.children[best]
        visits_below = kept.n
        assert engine.ask(f"play b {reply.gtp()}") == "="
        assert engine.ponderer.searches >= 1 and engine.ponderer.simulations >= 200 - 30
        assert tree.root is kept and kept.n >= visits_below  # notify kept the pondered subtree
        second = engine.ask("genmove w")
        board = Board(Rules(size=7))
        board.push(Move.from_gtp(first[2:], 7), Colour.WHITE)
        board.push(reply, Colour.BLACK)
        assert board.is_legal(Move.from_gtp(second[2:], 7), Colour.WHITE)
        assert engine.ask("quit") == "="
    finally:
        engine.close()
    assert not engine.thread.is_alive() and not engine.ponderer.running


def test_answers_mid_ponder_equal_those_of_a_quiet_engine() -> None:
    commands = ["play w c3", "showboard", "margo-legal_moves", "undo", "play w b2", "final_score"]
    quiet = make_gtp_engine(make_player("mcts:playouts=20", seed=1), Rules(size=5))
    expected = [quiet.respond(line)[0].rstrip("\n") for line in commands]
    engine = PonderingSession(MctsPlayer(random.Random(1), playouts=20))
    try:
        answers = []
        for line in commands:
            engine.wait_for_visits(20)
            answers.append(engine.ask(line))
        assert answers == expected
    finally:
        engine.close()


def test_nothing_to_ponder_when_the_game_is_over_or_the_player_does_not_search() -> None:
    assert make_ponderer(make_gtp_engine(make_player("heuristic"), Rules(size=3)).session) is None
    session = make_gtp_engine(MctsPlayer(random.Random(0), playouts=5), Rules(size=3)).session
    ponderer = make_ponderer(session)
    session.cmd_genmove(Colour.WHITE)
    session._state.resigned = Colour.BLACK  # as after "genmove b" answered resign: game over
    ponderer.start()
    assert not ponderer.running
    ponderer.stop()  # stopping when idle is harmless
    assert ponderer.searches == 0


def test_a_failing_ponder_search_is_reported_and_the_session_goes_on() -> None:
    class Broken(MctsPlayer):
        def search(self, *args, **kwargs):  # noqa: ANN002, ANN003
            raise ValueError("boom")

    errors = io.StringIO()
    session = make_gtp_engine(Broken(random.Random(0)), Rules(size=3)).session
    ponderer = Ponderer(session, stderr=errors)
    ponderer.start()
    ponderer.stop()
    assert errors.getvalue() == "margo-gtp: ponder search failed: ValueError('boom')\n"


@pytest.mark.process
def test_margo_gtp_ponder_process_answers_and_exits_cleanly() -> None:
    margo_gtp = str(Path(sys.executable).parent / "margo-gtp")
    lines = "genmove w\nplay b a1\ngenmove w\nmargo-to_move\nquit\n"
    result = subprocess.run([margo_gtp, "--size", "5", "--player", "mcts:playouts=30,seed=2", "--ponder"],
                            input=lines, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    responses = result.stdout.split("\n\n")
    assert responses[0].startswith("= ") and responses[1] == "=" and responses[2].startswith("= ")
    assert responses[3:] == ["= B", "=", ""]
