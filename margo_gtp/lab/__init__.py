"""The lab: self-play training data, network training and export (docs/network.md).

Nothing here runs when a game is played: the engine reads the exported weights through
:mod:`margo_gtp.players.net`. Training needs the ``train`` extra (PyTorch, numpy, onnx).
"""
