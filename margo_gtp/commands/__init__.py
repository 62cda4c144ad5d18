"""One module per program (pyproject's console scripts): the command lines, nothing else."""
