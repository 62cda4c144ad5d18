"""The one options reader (margo_gtp/options.py): what it accepts, what it refuses and the
exact one-line refusals, each naming the key and the value."""

from __future__ import annotations

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st

from margo_gtp.match.match_config import Adjudication, TimeControl
from margo_gtp.gtp2d.projected_session import ProjectedSession
from margo_gtp.match.sprt import SprtSpec
from margo_gtp import sgf
from margo_gtp.engine import Rules, RulesError
from margo_gtp.engine.rules import RulePairError, parse_rule_pairs
from margo_gtp.options import (
    OptionError, PairError, parse_decimal, parse_integer, read_choice, read_decimal, read_integer, read_pairs,
    read_switch, split_items,
)
from margo_gtp.players import PlayerSpecError, make_player
from margo_gtp.players.spec import OPTIONS, read_mcts_options
from margo_gtp.protocol.analysis import parse_info
from margo_gtp.protocol.gtp import GtpError
from margo_gtp.sgf import SgfError
from margo_gtp.web.cli import parse_engine_options


@pytest.mark.parametrize("text, value", [("0", 0), ("42", 42), ("-3", -3), ("007", 7)])
def test_integers(text, value):
    assert parse_integer(text) == value


@pytest.mark.parametrize("text", ["+5", "1_0", " 5", "5 ", "\u0665", "\uff15", "5.0", "", "-", "0x10", "1e3"])
def test_integers_refuse_what_int_takes(text):
    with pytest.raises(ValueError, match="^not an integer: "):
        parse_integer(text)


@pytest.mark.parametrize("text, value", [("6.5", 6.5), ("+5", 5.0), ("-.5", -0.5), ("7.", 7.0), ("1e1", 10.0), ("1E-1", 0.1)])
def test_decimals(text, value):
    assert parse_decimal(text) == value


@settings(deadline=None)
@given(st.integers(-10**30, 10**30))
def test_integer_round_trip(number):
    assert parse_integer(str(number)) == number


@settings(deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_decimal_round_trip(number):
    assert parse_decimal(repr(number)) == number


@pytest.mark.parametrize("call, message", [
    *[(lambda text=text: parse_decimal(text), f"not a {kind}: {text!r}") for text, kind in [
        ("1e400", "finite number"), ("-1e400", "finite number"), ("inf", "decimal number"), ("nan", "decimal number"),
        ("1_0", "decimal number"), ("0x10", "decimal number"), (".", "decimal number")]],
    (lambda: read_integer("1_0", "playouts"), "playouts must be an integer: '1_0'"),
    (lambda: read_integer("9", "ladder", minimum=0, maximum=8), "ladder must be between 0 and 8: '9'"),
    (lambda: read_integer("-1", "n", minimum=0), "n must be an integer >= 0: '-1'"),
    (lambda: read_integer("x", "n", expected="a whole number >= 1"), "n must be a whole number >= 1: 'x'"),
    (lambda: read_decimal("x", "komi"), "komi must be a number: 'x'"),
    (lambda: read_decimal("nan", "komi"), "komi must be a finite number: 'nan'"),
    (lambda: read_decimal("-inf", "komi"), "komi must be a finite number: '-inf'"),
    (lambda: read_decimal("1e400", "komi"), "komi must be a finite number: '1e400'"),
    (lambda: read_decimal("-1", "seconds", minimum=0), "seconds must be a finite number >= 0: '-1'"),
    (lambda: read_decimal("0", "margin", minimum=0, above=True), "margin must be a finite number > 0: '0'"),
    (lambda: read_decimal("2", "resign", minimum=0, maximum=1), "resign must be between 0 and 1: '2'"),
    (lambda: read_switch("1", "reuse"), "reuse must be on or off: '1'"),
    (lambda: read_switch("yes", "swap"), "swap must be on or off: 'yes'"),
    (lambda: read_choice("Simple", "ko_rule", ("simple", "none")), "ko_rule must be one of simple, none: 'Simple'"),
])
def test_refusals_name_key_and_value(call, message):
    with pytest.raises(ValueError) as caught:  # OptionError for the keyed readers
        call()
    assert str(caught.value) == message
    assert "\n" not in message


def test_option_error_fields():
    with pytest.raises(OptionError) as caught:
        read_integer("two", "threads", expected="a whole number")
    assert (caught.value.key, caught.value.text, caught.value.expected) == ("threads", "two", "a whole number")


@pytest.mark.parametrize("text, value", [("on", True), ("ON", True), ("true", True), ("off", False), ("False", False)])
def test_switches(text, value):
    assert read_switch(text, "swap") is value


def test_numbers_in_range_pass():
    assert read_integer("8", "ladder", minimum=0, maximum=8) == 8
    assert read_decimal("0.5", "resign", minimum=0, maximum=1) == 0.5
    assert read_decimal("+5", "komi") == 5.0


def test_pairs():
    assert read_pairs(["a=1", " b = 2 ", "c="]) == {"a": "1", "b": "2", "c": ""}


@pytest.mark.parametrize("items, message", [
    (["a"], "expected K=V: 'a'"),
    (["=1"], "expected K=V: '=1'"),
    (["a=1", "a=2"], "a given twice"),
])
def test_pairs_refused(items, message):
    with pytest.raises(PairError) as caught:
        read_pairs(items)
    assert str(caught.value) == message


def test_pairs_messages_are_the_callers():
    with pytest.raises(PairError, match=r"^--rule size given twice$"):
        read_pairs(["size=7", "size=9"], malformed="--rule takes K=V: {item!r}", repeated="--rule {key} given twice")


def test_split_items():
    assert split_items("a=1, b=2,,c=3") == ["a=1", "b=2", "c=3"]
    assert split_items("margin=5 moves=3,x=1", ", ") == ["margin=5", "moves=3", "x=1"]
    assert split_items("") == []


# -- the consumers: refusals issue #22 lists, each with its exact one-line text ----------------

_SWITCH_HINT = "(True or False; text 'on'/'off' goes through with_options)"
CONSUMER_REFUSALS = [
    # (what is read, how, the error class, the exact message)
    ("Rules(swap='off')", lambda: Rules(swap="off"), RulesError, f"invalid swap: 'off' {_SWITCH_HINT}"),
    ("Rules(bridge_cutting='off')", lambda: Rules(bridge_cutting="off"), RulesError,
     f"invalid bridge_cutting: 'off' {_SWITCH_HINT}"),
    ("Rules(all_freedoms='off')", lambda: Rules(all_freedoms="off"), RulesError,
     f"invalid all_freedoms: 'off' {_SWITCH_HINT}"),
    ("Rules(allow_pass=1)", lambda: Rules(allow_pass=1), RulesError, f"invalid allow_pass: 1 {_SWITCH_HINT}"),
    ("Rules(max_level=True)", lambda: Rules(max_level=True), RulesError, "invalid max_level: True (a number, not a bool)"),
    ("Rules(size=True)", lambda: Rules(size=True), RulesError, "invalid size: True (a number, not a bool)"),
    ("Rules(max_level=1.5)", lambda: Rules(max_level=1.5), RulesError, "invalid max_level: 1.5 (an integer or None)"),
    ("Rules(komi='6.5')", lambda: Rules(komi="6.5"), RulesError, "invalid komi: '6.5' (a number)"),
    ("rule max_level=+3", lambda: Rules().with_options({"max_level": "+3"}), RulesError,
     "invalid value for max_level: '+3' (an integer)"),
    ("rule size=1_0", lambda: Rules().with_options({"size": "1_0"}), RulesError,
     "invalid value for size: '1_0' (an integer)"),
    ("rule size=\u0667", lambda: Rules().with_options({"size": "\u0667"}), RulesError,
     "invalid value for size: '\u0667' (an integer)"),
    ("rule komi=1e400", lambda: Rules().with_options({"komi": "1e400"}), RulesError,
     "invalid value for komi: '1e400' (a finite number)"),
    ("rule komi=nan", lambda: Rules().with_options({"komi": "nan"}), RulesError,
     "invalid value for komi: 'nan' (a finite number)"),
    ("rule swap=1", lambda: Rules().with_options({"swap": "1"}), RulesError, "invalid value for swap: '1' (allowed on, off)"),
    ("--rule size", lambda: parse_rule_pairs(["size"]), RulePairError, "--rule takes K=V: 'size'"),
    ("--rule twice", lambda: parse_rule_pairs(["size=7", " size = 9"]), RulePairError, "--rule size given twice"),
    *[(spec, lambda spec=spec: make_player(spec), PlayerSpecError, message) for spec, message in [
        ("mcts:playouts=1_0", "player option playouts must be a whole number >= 1: '1_0'"),
        ("mcts:playouts=+10", "player option playouts must be a whole number >= 1: '+10'"),
        ("mcts:playout_moves=1_0", "player option playout_moves must be an integer: '1_0'"),
        ("mcts:ladder=\u0663", "player option ladder must be an integer: '\u0663'"),
        ("mcts:seconds=1e400", "player option seconds must be a finite number >= 0: '1e400'"),
        ("mcts:c=inf", "player option c must be a finite number >= 0: 'inf'"),
        ("mcts:reuse=1", "player option reuse must be on or off: '1'"),
        ("mcts:early_stop=0", "player option early_stop must be on or off: '0'"),
        ("mcts:prior_temp=-1", "player option prior_temp must be a finite number > 0: '-1'"),
        *[(f"mcts:threads={text}", f"player option threads must be auto or a whole number from 1 to 256: '{text}'")
          for text in ["0", "-1", "1.5", "two", "1000000", "1_0"]],
        *[(f"mcts:max_nodes={text}",
           f"player option max_nodes must be a whole number from 2473 to 2147483647: '{text}'")
          for text in ["0", "100", "2472", "-5", "1e6", "2147483648"]],
        *[(f"mcts:max_nodes={text}",
           f"player option max_nodes must be a size from 1MB to 131072MB (or 128GB): '{text}'")
          for text in ["0MB", "-1MB", "1.5GB", "+1MB", "1_0MB", "MB", "256mb", "129GB", "131073MB", "1000000GB"]],
        ("random:seed=1_0", "player option seed must be an integer: '1_0' in spec 'random:seed=1_0'"),
    ]],
    *[(f"--adjudicate {text}", lambda text=text: Adjudication.parse(text), ValueError, message) for text, message in [
        ("margin=1_0 moves=3", "--adjudicate margin must be a number: '1_0'"),
        ("margin=inf moves=3", "--adjudicate margin must be a finite number: 'inf'"),
        ("margin=5 moves=+3", "--adjudicate moves must be an integer: '+3'"),
        ("margin=5 moves=3 moves=4", "--adjudicate takes margin=M moves=N: 'margin=5 moves=3 moves=4'"),
    ]],
    *[(f"--sprt {text}", lambda text=text: SprtSpec.parse(text), ValueError, message) for text, message in [
        ("elo1=1_0", "--sprt elo1 must be a number: '1_0'"),
        ("elo1=1e400", "--sprt elo1 must be finite: '1e400'"),
        ("elo1=\u0665", "--sprt elo1 must be a number: '\u0665'"),
    ]],
    *[(f"--time-control {text}", lambda text=text: TimeControl.parse(text), ValueError,
       f"time control must be 'MAIN', 'MAIN BYO_YOMI_TIME BYO_YOMI_STONES' or 'MAIN+INCREMENT': {text!r}")
      for text in ["1_0", "inf", "1e400", "60 10 +5", "60 10+5"]],
    ("margo-web --engine twice", lambda: parse_engine_options(["a=margo-gtp", "a=margo-gtp"]), typer.BadParameter,
     "engine 'a' given twice"),
    ("margo-gtp-2d boardsize +17", lambda: ProjectedSession(None).cmd_boardsize(["+17"]), GtpError, "syntax error"),
    ("margo-gtp-2d boardsize 1_7", lambda: ProjectedSession(None).cmd_boardsize(["1_7"]), GtpError, "syntax error"),
    ("--time-control 60+-1", lambda: TimeControl.parse("60+-1"), ValueError,
     "time control values must be finite and not negative: '60+-1'"),
    ("SGF MR twice", lambda: sgf.loads("(;GM[77]SZ[5]MR[swap=on][swap=off])"), SgfError,
     "bad MR entry: 'swap=off' (swap given twice)"),
    ("SGF MR swap=1", lambda: sgf.loads("(;GM[77]SZ[5]MR[swap=1])"), SgfError,
     "bad rule option in MR: invalid value for swap: '1' (allowed on, off)"),
    ("info visits 1_0", lambda: parse_info("info move A1:1 visits 1_0 winrate 0.5 prior 0.5 order 0 pv A1:1"),
     ValueError, "not an integer: '1_0'"),
    ("info winrate nan", lambda: parse_info("info move A1:1 visits 1 winrate nan prior 0.5 order 0 pv A1:1"),
     ValueError, "not a decimal number: 'nan'"),
]


@pytest.mark.parametrize("case, call, error, message", CONSUMER_REFUSALS, ids=[row[0] for row in CONSUMER_REFUSALS])
def test_consumer_refusals(case, call, error, message):
    with pytest.raises(error) as caught:
        call()
    assert str(caught.value) == message


def test_consumers_read_what_the_reader_accepts():
    rules = Rules().with_options({"swap": "off", "bridge_cutting": "false", "all_freedoms": "TRUE", "komi": "+5"})
    assert (rules.swap, rules.bridge_cutting, rules.all_freedoms, rules.komi) == (False, False, True, 5.0)
    assert read_mcts_options({"playouts": "10", "reuse": "true", "early_stop": "OFF", "seconds": "+0.5"}) == {
        "playouts": 10, "reuse": True, "early_stop": False, "seconds": 0.5}
    assert set(OPTIONS) >= {"seconds", "playouts", "c", "rave", "threads", "core"}
    assert Adjudication.parse("margin=7.5, moves=4") == Adjudication(7.5, 4)
    assert SprtSpec.parse("elo0=-1.5,elo1=+3") == SprtSpec(-1.5, 3.0)
