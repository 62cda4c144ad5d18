"""Every reply read the GoGui way (gtp.md section 1).

GoGui's ``GtpClient.readResponse`` (GoGui 1.6, ``src/net/sf/gogui/gtp/GtpClient.java``)
takes the answer to be everything after the first space of the whole reply, minus the
final empty line; gogui-regress does the same and trims. A reply written ``=7\\nLevel 1``
therefore reads ``1``; GoGui's ruler board then loses its first cell and stays empty.
Here every command of ``margo-gtp`` and ``margo-gtp-2d`` that answers (including the
multi-line and streaming ones, with and without an id, successes and failures) is read
that way and must give exactly the text a lenient client reads.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from margo_gtp.engine import Rules
from margo_gtp.players.mcts import MctsPlayer
from margo_gtp.protocol.analysis import install
from margo_gtp.protocol.session import make_gtp_engine
from test_analysis import run_script, stream_session

MARGO_GTP_2D = Path(sys.executable).parent / "margo-gtp-2d"
_HEAD = re.compile(r"([=?])([0-9]*)")


def gogui_answer(reply: str) -> str:
    """``GtpClient.readResponse``: the reply (ending in the empty line) after its first
    space, or after the sign when it has none, minus the final two newlines."""
    assert reply.endswith("\n\n"), reply
    space = reply.find(" ")
    return reply[1:-2] if space < 0 else reply[space + 1 : -2]


def intended_answer(reply: str) -> str:
    """What the engine meant: the text after the head, a leading line break dropped."""
    head = _HEAD.match(reply)
    assert head is not None, reply
    text = reply[head.end() : -2]
    return text[1:] if text[:1] == " " else text


def split_replies(output: str) -> list[str]:
    return [block + "\n\n" for block in output.split("\n\n")[:-1]]


def check_replies(output: str, expected_count: int) -> list[str]:
    """Every reply reads the same the GoGui way as meant; returns the GoGui answers."""
    replies = split_replies(output)
    assert len(replies) == expected_count, output
    answers = []
    for reply in replies:
        answer = gogui_answer(reply)
        assert answer == intended_answer(reply).lstrip("\n") or answer == intended_answer(reply), reply
        if "\n" in reply[:-2]:  # multi-line: the head is followed by one space
            assert _HEAD.match(reply).end() < len(reply) and reply[_HEAD.match(reply).end()] == " ", reply
        answers.append(answer)
    return answers


# Every command of margo-gtp with arguments that make it answer; multi-line ones first.
ENGINE_SCRIPT = [
    "margo-set_limit playouts=30",
    "play w c3",
    "showboard",
    "list_commands",
    "gogui-analyze_commands",
    "printsgf",
    "margo-analyze_snapshot b",
    "margo-ownership",
    "margo-ownership_kind",
    "final_status_list dead",
    "final_status_list alive",
    "margo-legal_moves b",
    "margo-board",
    "margo-get_rules",
    "margo-score",
    "margo-to_move",
    "final_score",
    "cputime",
    "name",
    "version",
    "protocol_version",
    "known_command showboard",
    "komi 0.5",
    "time_settings 0 1 1",
    "time_left b 10 1",
    "kgs-time_settings none",
    "reg_genmove b",
    "genmove b",
    "undo",
    "margo-genmove_analyze b",
    "undo",
    "margo-setup b a1",
    "margo-to_move w",
    "margo-set_rules komi=1",
    "loadsgf /nonexistent.sgf",
    "play w zz",
    "xyzzy",
    "margo-level 1",
    "boardsize 5",
    "margo-set_rules komi=1",
    "clear_board",
]


def _engine():
    engine = make_gtp_engine(MctsPlayer(random.Random(0), playouts=30), Rules(size=5))
    install(engine, engine.session)
    return engine


def test_every_engine_command_reads_the_gogui_way() -> None:
    engine = _engine()
    listed = set(run_script(engine, ["list_commands"])[2:-2].split("\n"))
    sent = {line.split()[0] for line in ENGINE_SCRIPT} | {"margo-analyze", "quit"}
    assert listed - sent == set(), "a command is missing from this test"
    for with_id in (False, True):
        lines = [f"{n} {line}" if with_id else line for n, line in enumerate(ENGINE_SCRIPT, start=1)]
        answers = check_replies(run_script(_engine(), lines + ["quit"]), len(lines) + 1)
        assert answers[2].startswith("\nLevel 1\n    A B C D E\n")  # showboard, from the line after '=' 
        assert answers[3].split("\n")[0] == "boardsize"  # list_commands
        assert answers[4].split("\n")[0].startswith("string/")  # gogui-analyze_commands
        assert answers[5].startswith("(;")  # printsgf
        assert answers[6].startswith("\ninfo move ")  # margo-analyze_snapshot, from the line after '='


@pytest.mark.parametrize("command_id", ["", "12 "])
def test_the_streaming_analysis_head_reads_the_gogui_way(command_id: str) -> None:
    output = stream_session(_engine(), f"play w c3\n{command_id}margo-analyze b 1\n", "name\n", lines_before_input=2)
    replies = split_replies(output)
    assert len(replies) == 3
    stream = replies[1]
    assert stream.startswith(f"={command_id.strip()} \ninfo move ")
    answer = gogui_answer(stream)
    assert answer.startswith("\ninfo move ") and answer.count("info move ") >= 2
    assert all(line.startswith("info move ") for line in answer.strip("\n").split("\n"))


PROXY_SCRIPT = [
    "boardsize 17",
    "play b j9",
    "gogui-rules_board",
    "gogui-rules_board_gfx",
    "showboard",
    "list_commands",
    "gogui-analyze_commands",
    "printsgf",
    "gogui-rules_legal_moves",
    "gogui-rules_board_size",
    "gogui-rules_side_to_move",
    "gogui-rules_final_result",
    "gogui-rules_captured_count",
    "gogui-rules_game_id",
    "margo-set_limit playouts=20",
    "margo-analyze_snapshot b",
    "margo-ownership",
    "margo-ownership_kind",
    "margo-gfx_winrates b",
    "margo-gfx_best_line b",
    "margo-gfx_ownership",
    "final_status_list dead",
    "margo-board",
    "margo-get_rules",
    "margo-legal_moves",
    "margo-score",
    "margo-to_move",
    "final_score",
    "name",
    "version",
    "protocol_version",
    "known_command play",
    "komi 0.5",
    "time_settings 0 1 1",
    "time_left w 10 1",
    "kgs-time_settings none",
    "reg_genmove w",
    "genmove w",
    "undo",
    "margo-setup b a1",
    "margo-set_rules komi=1",
    "loadsgf /nonexistent.sgf",
    "play w a2",
    "xyzzy",
    "margo-level 1",
    "clear_board",
    "cputime",
]


def _proxy(lines: list[str]) -> str:
    done = subprocess.run(
        [str(MARGO_GTP_2D), "--engine", f"{Path(sys.executable).parent / 'margo-gtp'} --player random --seed 1"],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_every_proxy_command_reads_the_gogui_way() -> None:
    listed = set(_proxy(["list_commands"])[2:-2].split("\n"))
    assert listed - {line.split()[0] for line in PROXY_SCRIPT} - {"quit"} == set(), "a command is missing"
    for with_id in (False, True):
        lines = [f"{n} {line}" if with_id else line for n, line in enumerate(PROXY_SCRIPT, start=1)]
        answers = check_replies(_proxy(lines + ["quit"]), len(lines) + 1)
        board = answers[2].strip("\n").split("\n")
        # GoGui's ruler board: 17 rows of 17 cells, the ball of E5:1 (2-D J9) in the middle
        assert [len(row.split()) for row in board] == [17] * 17
        assert board[8].split()[8] == "X"
        assert answers[3].split("\n")[-1].startswith("TEXT ")  # gogui-rules_board_gfx
        assert answers[4].lstrip("\n").startswith("Level 1\n")  # showboard (forwarded)
        assert answers[5].split("\n")[0] == "boardsize"
        assert answers[6].split("\n")[0].startswith("gfx/")
