"""margo-web: a board in the browser to play, watch and replay MarGo.

Reading guide
    :mod:`~margo_gtp.web.view` turns a :class:`~margo_gtp.engine.Board` into the JSON the page
    draws (the page never works out a rule itself: style.md item 24). :mod:`~margo_gtp.web.game`
    holds one game (the board, who plays each colour, the engine subprocesses driven through
    :mod:`margo_gtp.client`). :mod:`~margo_gtp.web.watch` reads a margo-match/margo-tournament
    output folder and its live feeds. :mod:`~margo_gtp.web.app` is the Starlette app (HTTP +
    websocket protocol) and :mod:`~margo_gtp.web.cli` the ``margo-web`` command. The front end
    is plain HTML/CSS/JS modules in ``static/`` (no build step, no CDN).
"""
