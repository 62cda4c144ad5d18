"""The random rules the search's differential tests draw (hypothesis), shared so the C tree,
its priors and their Python references are checked over the same options."""

from __future__ import annotations

from hypothesis import strategies as st

from margo_gtp.engine import Rules


def search_rules(draw, size: int) -> Rules:
    """Rules of ``size`` with every option the search reads drawn at random."""
    return Rules(size=size, allow_pass=draw(st.booleans()), swap=draw(st.booleans()),
                 bridge_cutting=draw(st.booleans()), all_freedoms=draw(st.booleans()),
                 scoring=draw(st.sampled_from(["balls", "territory"])), komi=draw(st.sampled_from([0.0, 0.5, 3.5])),
                 first_capture_wins=draw(st.booleans()),
                 ko_rule=draw(st.sampled_from(["situational", "positional", "simple"])))
