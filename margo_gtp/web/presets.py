"""Rule presets of the new-game form: the designer's rules, Jocly's and Ludii's Spargo.

A newcomer should not have to know what ``own_freedomless_group`` means to play the game
somebody else plays. A preset names a whole set of rule options (rules.md section 9), with
the board it is played on and what it means in plain words; the page shows the presets and
folds the options away, and any option changed by hand makes the rules ``custom``.

Where each one comes from (docs/web.md says the same):

* **the designer's rules**: Cameron Browne's own, from his MarGo page (cambolbro.com/games/
  margo) and *Margo Basics*, which rules.md follows for its defaults: 7x7, White first,
  Black may swap instead of its first move, no passing, no position may come back
  (situational superko over the full position), most balls in play wins.
* **Jocly's**: the rules page of Jocly's MarGo (aclap-dev/jocly, ``games/margo/rules.html``):
  a move is refused when it would leave any of the mover's balls to be removed
  (``own_freedomless_group=illegal``), only the position before the last move may not
  come back (``simple`` ko), no swap or passing, most balls wins. Jocly plays 5x5 to 8x8;
  the preset's board is 7x7, the designer's.
* **Ludii's Spargo**: Ludii's ``Spargo.lud`` (Ludeme/Ludii, ``board/space/territory``):
  the 4x4 Shibumi board, no swap, no passing, the game ends when a player cannot move, most
  balls in play wins. Ludii's code checks no repetition at all (its rule text says "other Go
  rules apply"); the preset keeps situational superko, so that every game ends.

A ``new`` message names its preset (``"preset": "designer"``, or ``"custom"``); the server
refuses a name it does not know, and a preset's rules that the message's ``rules`` contradict,
each with one line (:class:`~margo_gtp.web.game.GameError`) before anything is started.
A game without a preset (an older client, the guided game, Play from here) has none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from margo_gtp.engine import Rules
from margo_gtp.web.game import GameError

#: What a ``new`` message sends for rules chosen by hand.
CUSTOM = "custom"


@dataclass(frozen=True)
class Preset:
    """A named set of rule options (every option but ``size``), the board it is played on
    (the form's size when the preset is picked: another may be chosen after) and its words."""

    name: str
    title: str
    size: int
    options: dict[str, str]
    words: str

    def view(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "size": self.size, "options": self.options,
                "words": self.words}


def _options(**changes: str) -> dict[str, str]:
    """Every rule option but size, rules.md's defaults with ``changes``: a preset leaves nothing
    to whatever the form held before. ``max_level`` is left out: no limit, whatever the size."""
    options = {name: str(value) for name, value in Rules().options().items() if name not in ("size", "max_level")}
    options["komi"] = "0"
    return {**options, **changes}


PRESETS: dict[str, Preset] = {preset.name: preset for preset in (
    Preset("designer", "the designer's rules", 7, _options(swap="on"),
           "Cameron Browne's own rules, on his 7×7 board: White starts, and Black may swap colours "
           "instead of its first move. No passing, and no position may ever come back. When the "
           "player to move has no legal move, the side with more balls on the board wins."),
    Preset("jocly", "Jocly's", 7, _options(own_freedomless_group="illegal", ko_rule="simple"),
           "As the Jocly site plays MarGo: no swap. A move that would leave any of your own balls "
           "without a freedom is refused, and only the position just before your opponent's move "
           "may not come back (simple ko). Most balls wins."),
    Preset("spargo", "Ludii's Spargo", 4, _options(),
           "Spargo, MarGo on the 4×4 board of the Shibumi set, as Ludii plays it: no swap, no "
           "passing. The game ends when a player cannot move, and the most balls wins."),
)}


def presets_view() -> list[dict[str, Any]]:
    """The presets as the page shows them (the ``hello`` message), in the form's order."""
    return [preset.view() for preset in PRESETS.values()]


def named_preset(message: dict[str, Any]) -> Preset | None:
    """The preset a ``new`` message names: None for none or ``custom``; GameError for a name
    that is no preset. Its options are the rules the message's ``rules`` add to."""
    if "preset" not in message or message["preset"] == CUSTOM:
        return None
    name = message["preset"]
    preset = PRESETS.get(name) if isinstance(name, str) else None
    if preset is None:
        raise GameError(f"unknown rule preset: {name!r} (one of {', '.join([*PRESETS, CUSTOM])})")
    return preset


def read_preset(message: dict[str, Any], rules: Rules) -> str | None:
    """The preset to keep with a game of a ``new`` message: its name, ``custom`` or None
    (the message names none). GameError when ``rules``, the rules the message asks for, are
    not the named preset's (the size aside)."""
    preset = named_preset(message)
    if preset is None:
        return CUSTOM if message.get("preset") == CUSTOM else None
    expected = Rules().with_options({**preset.options, "size": str(rules.size)}).options()
    for option, value in rules.options().items():
        if expected[option] != value:
            raise GameError(f"rules are not {preset.title} (preset {preset.name!r}): {option} is {value}, "
                            f"the preset has {expected[option]}; send preset {CUSTOM!r} for other rules")
    return preset.name


def known_preset(name: Any) -> str | None:
    """A preset name read back from a journal or an SGF, or None when it is none this
    version knows (a file from before the presets, or edited by hand): it is only a label."""
    return name if name == CUSTOM or (isinstance(name, str) and name in PRESETS) else None


def preset_title(name: Any) -> str | None:
    """Words for a game's preset: its title, ``custom rules``, or None (none it knows)."""
    if name == CUSTOM:
        return "custom rules"
    return PRESETS[name].title if known_preset(name) is not None else None
