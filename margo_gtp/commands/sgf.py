"""Command-line converter between native MarGo SGF and the projected Go export.

The format itself (reading, writing, replaying, the projected export) is part of the game
and lives in :mod:`margo_gtp.sgf`; this module is only its command line.
"""

from __future__ import annotations

from typing import Sequence

from margo_gtp import textfile
from margo_gtp.sgf import MAX_SGF_BYTES, SgfError, dumps, dumps_projected, loads, replay


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m margo_gtp.commands.sgf {projected,native} FILE``: print FILE converted.

    ``projected`` writes the Go export of a MarGo record (for Sabaki and other Go viewers);
    ``native`` writes the native MarGo record of any record :func:`loads` reads (e.g. a
    game a Go tool saved while playing through ``margo-gtp-2d``). Exit status 1 and a
    message on stderr when the file cannot be read or converted.
    """
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m margo_gtp.commands.sgf", description=main.__doc__.splitlines()[0])
    parser.add_argument("target", choices=("projected", "native"))
    parser.add_argument("file")
    options = parser.parse_args(argv)
    try:
        try:  # a regular file of bounded size: a FIFO would hang, /dev/zero fill memory
            text = textfile.read_text(options.file, MAX_SGF_BYTES)
        except textfile.TextFileError as error:
            if error.errno is not None:  # said as open() says it
                raise OSError(error.errno, error.reason, options.file) from None
            raise SgfError(error.reason) from None
        record = loads(text)
        replay(record)
        text = dumps_projected(record) if options.target == "projected" else dumps(record)
    except (OSError, UnicodeDecodeError, SgfError) as error:
        print(f"margo_gtp.commands.sgf: {options.file}: {error}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
