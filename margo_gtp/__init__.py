"""margo-gtp: MarGo rules engine, GTP 2 engine with a 3-D vertex, players and tools.

Dependency direction (never reversed):
    margo_gtp.vertex  <-  margo_gtp.engine  <-  margo_gtp.protocol  <-  margo_adapters / CLI
"""

__version__ = "0.1.0"
