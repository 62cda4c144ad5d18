"""Stopping and watching the C tree while it runs (issue 23: "Responsive", "Memory is bounded").

A ``_search.StopFlag`` set by any thread ends the search after the simulations in flight;
another stop callable is asked every few milliseconds; ``progress`` hands the running
search's root children over every interval, and a true answer stops it. Pondering and
``margo-analyze`` run on the C tree through these, answer commands at once (a real
``margo-gtp`` process here; the latency is measured by scripts/stop-latency, not asserted),
and keep the tree within ``max_nodes`` however long they run.
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from margo_gtp.engine import Board, Colour, Rules, core
from margo_gtp.engine.core import native_state
from margo_gtp.engine.positions import midgame_positions
from margo_gtp.players import make_player, native_search
from margo_gtp.players.mcts import DECIDED_CHECK_EVERY, MctsPlayer
from margo_gtp.protocol.analysis import AnalysisStream, parse_info
from margo_gtp.protocol.ponder import Ponderer
from margo_gtp.protocol.session import make_gtp_engine

pytestmark = pytest.mark.skipif(not (core.native_available() and native_search.available()),
                                reason="native core or native search not built")

_search = native_search._search


def midgame(index: int = 0) -> Board:
    return core.board_on_core(midgame_positions()[index], "native")


def raw_search(board: Board, seed: int, playouts: int, *, threads: int = 1, tree=None, **control) -> tuple:
    """``_search.tree_search`` of a fresh seeded player's search without priors:
    (simulations, every node in preorder, pool full); ``control``: stop, progress, interval."""
    player = MctsPlayer(random.Random(seed), reuse=False, early_stop=False)
    helpers = native_search.helper_states(player.rng, threads)
    done, _, nodes, full = _search.tree_search(
        native_state(board), int(board.to_move), player.rng.getstate()[1], player._c_tree_params(board),
        board.rules.komi, board.rules.scoring == "territory", playouts, 1 << 24, None, None, True, tree, helpers,
        **control)
    return done, nodes, full


def test_a_stop_flag_set_between_simulations_ends_the_search_after_the_next() -> None:
    """The flag is set by the 3rd progress report (between two simulations of the one
    thread): the simulation then starting runs and is backed up, no other starts, and
    the tree is exactly the tree of that many simulations (one thread draws as the
    unstopped search does). The report counts the simulations backed up: when the thread
    backs a simulation up only at its next turn of the loop (under the lock it takes to
    claim the next), the report misses the one just played, hence up to two."""
    board = midgame(1)
    flag = native_search.new_stop_flag()
    reports = []

    def progress(done, *rest):  # noqa: ANN001, ANN002, ANN202
        reports.append(done)
        if len(reports) == 3:
            flag.set()

    done, nodes, _ = raw_search(board, 7, 1_000_000, stop=flag, progress=progress, interval=1e-3)
    assert len(reports) == 3 and reports[-1] < done <= reports[-1] + 2
    assert nodes[0][2] == done  # the root's visits: every simulation begun was backed up
    assert raw_search(board, 7, done)[1] == nodes


def test_a_flag_set_before_the_search_lets_no_simulation_run() -> None:
    flag = native_search.new_stop_flag()
    flag.set()
    done, nodes, _ = raw_search(midgame(), 1, 1000, stop=flag)
    assert done == 0 and nodes[0][2] == 0 and len(nodes) > 1  # the root was expanded, nothing searched
    flag.clear()
    assert not flag() and raw_search(midgame(), 1, 10, stop=flag)[0] == 10


def test_progress_reports_the_running_search_and_a_true_answer_stops_it() -> None:
    board = midgame(2)
    reports = []

    def progress(done, n, w, children, size, root_score):  # noqa: ANN001, ANN202
        reports.append((done, n, w, children, size, root_score))
        return len(reports) == 4

    player = MctsPlayer(random.Random(3), reuse=False, early_stop=False)
    tree = native_search.new_tree(1 << 20)
    done, n, w, children, size, root_score = native_search.search(
        board, board.to_move, player.rng, player._c_tree_params(board), None, None, None, tree=tree,
        progress=progress, interval=1e-4, scores=True)  # scores: the root's score sums ride along in each report
    assert root_score[2] == done  # every simulation's final score is counted at the root
    # no simulation starts after the 4th report (the one played before it may be backed up after it)
    assert len(reports) == 4 and reports[-1][0] <= done <= reports[-1][0] + 1 and n == done
    assert [child[0] for child in reports[-1][3]] == [child[0] for child in children]
    legal = {native_search.code_of(board, move) for move in board.legal_moves()}
    for (before, *_, before_children, _, _), (after, *_, after_children, _, _) in zip(reports, reports[1:]):
        assert before <= after
        assert [child[0] for child in before_children] == [child[0] for child in after_children]
        assert all(old[1] <= new[1] for old, new in zip(before_children, after_children))
    for report_done, report_n, _, report_children, report_size, report_score in reports:
        assert report_n == report_done == report_score[2]  # a fresh root: its visits are the simulations
        assert {child[0] for child in report_children} == legal and report_size <= tree.size
    assert tree.in_flight() == 0


def test_a_stop_callable_is_asked_while_a_threaded_search_runs() -> None:
    asked = [0]

    def stop() -> bool:
        asked[0] += 1
        return asked[0] >= 3

    tree = native_search.new_tree(1 << 20)
    done, nodes, _ = raw_search(midgame(), 2, -1, threads=2, tree=tree, stop=stop)  # no budget at all
    assert asked[0] == 3 and done > 0 and nodes[0][2] == done and tree.in_flight() == 0


@pytest.mark.parametrize("hook", ["stop", "progress"])
def test_an_exception_in_stop_or_progress_reaches_the_caller(hook) -> None:
    def fails(*args):  # noqa: ANN002, ANN202
        raise KeyError(f"from {hook}")

    tree = native_search.new_tree(1 << 20)
    with pytest.raises(KeyError, match=f"from {hook}"):
        raw_search(midgame(), 2, -1, threads=2, tree=tree, **{hook: fails, "interval": 1e-3})
    assert tree.in_flight() == 0


def test_bad_stop_progress_and_interval_are_refused() -> None:
    board = midgame()
    for control, error, text in [({"stop": 3}, TypeError, "stop must be a StopFlag, callable or None"),
                                 ({"progress": "x"}, TypeError, "progress must be callable or None"),
                                 ({"progress": print, "interval": 0.0}, ValueError, "interval must be > 0 seconds")]:
        with pytest.raises(error, match=f"^{text}$"):
            raw_search(board, 1, 10, **control)
    with pytest.raises(TypeError, match="^StopFlag\\(\\) takes no arguments$"):
        native_search.new_stop_flag()(1)


def test_a_flag_set_by_another_thread_stops_a_threaded_search_without_budget() -> None:
    board = midgame(3)
    flag, running = native_search.new_stop_flag(), threading.Event()
    setter = threading.Thread(target=lambda: (running.wait(60), flag.set()))
    setter.start()
    tree = native_search.new_tree(1 << 20)
    done, nodes, _ = raw_search(board, 4, -1, threads=2, tree=tree, stop=flag,
                                progress=lambda *report: running.set(), interval=1e-3)
    setter.join()
    assert done > 0 and nodes[0][2] == done and tree.in_flight() == 0


def test_the_player_watches_a_stoppable_c_search_through_one_view() -> None:
    """MctsPlayer.search with a stop and on_progress runs the C tree; every report hands
    over the same root and root children, updated, and the search's answer is that view."""
    board = Board(Rules(size=9))
    player = MctsPlayer(random.Random(5), threads=2)
    flag = native_search.new_stop_flag()
    seen = []

    def on_progress(root) -> None:  # noqa: ANN001
        seen.append((root, list(root.children), root.n))
        if len(seen) == 3:
            flag.set()

    root = player.search(board, board.to_move, stop=flag, on_progress=on_progress, interval=1e-3)
    assert len(seen) == 3 and player.last_tree_nodes > 0 and player._c_tree is not None
    assert all(view is root and children == root.children for view, children, _ in seen)
    assert 0 < seen[0][2] <= seen[1][2] <= seen[2][2] <= root.n == player.last_simulations
    assert player.analysis(root)[0].visits > 0


def test_pondering_runs_on_the_c_tree_and_the_next_move_reuses_it() -> None:
    """What ponder.py promises, on the C tree: the subtree below the opponent's actual move
    is kept (the view objects too) and the next genmove goes on from its visits."""
    player = MctsPlayer(random.Random(4), playouts=40)
    engine = make_gtp_engine(player, Rules(size=7))
    session = engine.session
    ponderer = Ponderer(session)
    assert engine.respond("genmove w")[0].startswith("= ")
    ponderer.start()
    while player.root is None or player.root.n < 400:  # a condition, not a timing
        threading.Event().wait(0.01)
    ponderer.stop()
    assert player._c_tree is not None and player.last_tree_nodes > 0
    reply = max(player.root.children, key=lambda child: child.n)
    visits_below = reply.n
    assert engine.respond(f"play b {reply.move.gtp()}")[0] == "=\n\n"
    assert player.root is reply and player._c_tree.size > 1
    assert engine.respond("genmove w")[0].startswith("= ")
    assert player.last_simulations > 0 and reply.n == visits_below + player.last_simulations  # went on from them


def vm_rss_bytes() -> int:
    """This process's resident set (/proc/self/status VmRSS)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")


#: What RSS may grow besides the pool during a long ponder or analysis: the Python view
#: objects of the reports and the allocator's slack (2 MB measured in all with the cap
#: below), far below what an uncapped tree takes: 300,000 simulations from the empty 9x9
#: board grew RSS by 68 MB (1.1 million nodes) with max_nodes=20000000.
RSS_SLACK = 8 << 20
CAP = 20_000  # nodes: 1.25 MB of pool


@pytest.mark.slow
@pytest.mark.parametrize("how", ["ponder", "analyze"])
def test_pondering_or_analysis_left_running_stays_within_the_pool_cap(how) -> None:
    player = make_player(f"mcts:max_nodes={CAP},threads=2")
    engine = make_gtp_engine(player, Rules(size=9))
    simulations = 300_000
    samples: list[tuple[int, int]] = []
    baseline = vm_rss_bytes()

    def sample() -> bool:
        samples.append((player.last_tree_nodes, vm_rss_bytes()))
        return player.last_simulations >= simulations

    if how == "ponder":
        ponderer = Ponderer(engine.session)
        ponderer.start()
        while not sample():
            threading.Event().wait(0.05)
        ponderer.stop()
        done = ponderer.simulations
    else:
        lines: list[str] = []
        stream = AnalysisStream(player, engine.session.board, Colour.BLACK, 0.05)
        stream.run(lines.append, sample)
        done = player.last_simulations
        assert lines and all(parse_info(line)["visits"] > 0 for line in lines)
    assert done >= simulations and len(samples) > 5
    node_bytes = native_search.node_bytes()
    assert CAP - 100 < max(nodes for nodes, _ in samples) <= CAP  # the cap was reached, never passed
    growth = max(rss for _, rss in samples) - baseline
    assert growth < CAP * node_bytes + RSS_SLACK, (growth, samples[-5:])


MARGO_GTP = str(Path(sys.executable).parent / "margo-gtp")


@pytest.mark.process
def test_a_real_engine_answers_commands_sent_mid_ponder_and_mid_analysis() -> None:
    """margo-gtp --ponder: each command written while the engine ponders, or while a
    margo-analyze stream runs, is answered (and the stream ended with its empty line)."""
    process = subprocess.Popen([MARGO_GTP, "--size", "9", "--player", "mcts:seconds=0.2,threads=2", "--ponder"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert process.stdin is not None and process.stdout is not None

    def send(line: str) -> None:
        process.stdin.write(line + "\n")
        process.stdin.flush()

    def answer() -> list[str]:
        """The lines up to the empty line that ends an answer."""
        lines = []
        while (text := process.stdout.readline()) not in ("\n", ""):
            lines.append(text.rstrip("\n"))
        return lines

    try:
        send("genmove w")
        assert answer()[0].startswith("= ")
        for _ in range(3):  # the engine ponders before and between these
            send("name")
            assert answer() == ["= margo-gtp"]
        send("margo-analyze b 5")
        assert process.stdout.readline() == "= \n"
        assert process.stdout.readline().startswith("info move ")  # the stream runs ...
        send("name")  # ... until this line, which ends it
        assert all(line.startswith("info move ") for line in answer())
        assert answer() == ["= margo-gtp"]
        send("quit")
        assert answer() == ["="]
    finally:
        process.stdin.close()
        assert process.wait(60) == 0


def test_the_python_stop_flag_behaves_as_the_c_one() -> None:
    """Where the extension is not built, new_stop_flag gives a Python flag with the same
    interface, which the Python search calls before every simulation."""
    for flag in (native_search._PythonStopFlag(), native_search.new_stop_flag()):
        assert (flag(), flag.is_set()) == (False, False)
        flag.set()
        assert (flag(), flag.is_set()) == (True, True)
        flag.clear()
        assert not flag()
    flag = native_search._PythonStopFlag()
    player = MctsPlayer(random.Random(2), c_tree=False)
    board = Board(Rules(size=5))
    seen = []

    def on_progress(root) -> None:  # noqa: ANN001
        seen.append(player.last_simulations)
        flag.set()

    player.search(board, board.to_move, stop=flag, on_progress=on_progress, interval=0.0)
    assert len(seen) == 1 and player.last_simulations == DECIDED_CHECK_EVERY + 1  # the report at 8, then one more


def test_pondering_with_the_python_search_stops_too() -> None:
    player = MctsPlayer(random.Random(6), playouts=20, c_tree=False)
    engine = make_gtp_engine(player, Rules(size=5))
    ponderer = Ponderer(engine.session)
    assert engine.respond("genmove w")[0].startswith("= ")
    ponderer.start()
    while player.root is None or player.root.n < 100:  # the Python tree grows live
        threading.Event().wait(0.01)
    ponderer.stop()
    # the root came from genmove with at most its 20 simulations and its prior visits
    assert not ponderer.running and ponderer.simulations >= 100 - 20 - player.prior_visits and player._c_tree is None


def test_the_session_reader_flags_follow_the_input() -> None:
    """The stop flags a GTP stream hands its search: a line (or the end of input) waiting,
    a command line waiting; set by the reader thread, cleared as the lines are read."""
    import os

    from margo_gtp.protocol.gtp import _LineReader

    read_fd, write_fd = os.pipe()
    reader = _LineReader(os.fdopen(read_fd, "r", encoding="utf-8"))
    assert not reader.line_waiting() and not reader.line_flag() and not reader.command_flag()
    os.write(write_fd, b"name\nversion\n")
    while not reader.line_flag():  # a condition, not a timing
        threading.Event().wait(0.001)
    assert reader.command_flag()
    assert reader.readline() == "name\n"
    assert reader.line_flag() and reader.command_flag()  # version still waits
    assert reader.readline() == "version\n"
    assert not reader.line_flag() and not reader.command_flag()
    os.close(write_fd)
    while not reader.line_flag():
        threading.Event().wait(0.001)
    assert not reader.command_flag()  # the end of input is a line, not a command
    assert reader.readline() == "" and reader.line_flag() and not reader.command_flag()  # and stays visible
