"""margo-gtp: MarGo rules engine, GTP 2 engine with a 3-D vertex, players and tools.

Rooms, each importing only from the rooms before it (``tests/test_import_graph.py`` checks it)::

    textfile, files, progress, machine, runlock   the ground floor (files, locks, progress)
    margo_gtp.options, vertex   option values, coordinates
    margo_gtp.engine            rules core: types, Board, the Python and C cores
    margo_gtp.players           player registry, random, heuristic, mcts, net, clock
    margo_gtp.sgf               the MarGo SGF record (read by the protocol's loadsgf)
    margo_gtp.analysis          game analysis and review (margo-analysis, margo-review)
    margo_gtp.protocol          GTP framing, handlers, session
    margo_gtp.client, game      the engine client; the game loop and the played game's record
    margo_gtp.gtp2d             the 2-D proxy for Go tools
    margo_gtp.console, speed_figures  what every console script shares; scripts/bench
    margo_gtp.web               the browser board
    margo_gtp.match             referee, tournaments, statistics, openings, cluster
    margo_gtp.lab               self-play, pattern and network training
    margo_gtp.commands          one module per console script
"""

__version__ = "0.1.0"
