"""margo-gtp: MarGo rules engine, GTP 2 engine with a 3-D vertex, players and tools.

Rooms, each importing only from the rooms before it (``tests/test_import_graph.py`` checks it)::

    margo_gtp.vertex            coordinates
    margo_gtp.engine            rules core: geometry, rules, Board, fixed positions
    margo_gtp.players           player registry, random, heuristic, mcts, time control
    margo_gtp.sgf               the MarGo game record (read by the protocol's loadsgf)
    margo_gtp.protocol          GTP framing, handlers, session
    margo_gtp.client, cli, bench  the public engine client; console scripts
    margo_gtp.web               the browser board
    margo_adapters              2-D projection, referee, tournaments, statistics
"""

__version__ = "0.1.0"
