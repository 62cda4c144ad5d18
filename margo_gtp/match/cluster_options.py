"""The ``--cluster ADDRESS`` and ``--runtime-env`` values, checked before Ray is imported.

Ray takes any string as an address and finds out it is wrong the slow way: ``ray://``,
``ray://HOST:abc`` or ``ray://HOST`` cost 30-40 s of gRPC retries, ``:6379`` ends in Ray's
own traceback. So the syntax is checked here, at once, with one line naming the value:

=====================  ========================================================
``local``              a private Ray instance on this machine, for the match
``auto``               the cluster this machine belongs to (Ray finds it)
``HOST:PORT``          a GCS address (``ray start --head`` listens on 6379)
``ray://HOST:PORT``    Ray Client (port 10001 by default on the head)
=====================  ========================================================

``HOST`` is a host name or an IPv4 address, or an IPv6 address in brackets; ``PORT`` is
1-65535 and always written (a missing port is refused rather than guessed). The two
address forms are then probed with a TCP connection of at most
:data:`margo_gtp.match.cluster.HEAD_PROBE_SECONDS` before Ray is asked.
"""

from __future__ import annotations

import json
import re
from typing import Any

from margo_gtp import textfile

LOCAL = "local"
AUTO = "auto"

#: Largest ``--runtime-env @FILE`` read (a runtime_env is a small JSON object).
MAX_RUNTIME_ENV_BYTES = 1024 * 1024

_HOST = r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)"
_ADDRESS = re.compile(rf"(?P<scheme>ray://)?(?P<host>{_HOST}):(?P<port>[0-9]{{1,5}})")
_FORMS = "'local', 'auto', HOST:PORT or ray://HOST:PORT"


def check_cluster_address(address: str) -> str:
    """``address`` if it is one of the forms above; ValueError naming it otherwise."""
    if address in (LOCAL, AUTO):
        return address
    if not address.strip():
        raise ValueError(f"--cluster needs an address: {_FORMS}: {address!r}")
    match = _ADDRESS.fullmatch(address)
    if match is None:
        raise ValueError(f"--cluster takes {_FORMS}: {_why(address)}: {address!r}")
    if not 1 <= int(match["port"]) <= 65535:
        raise ValueError(f"--cluster port must be 1 to 65535: {address!r}")
    return address


def _why(address: str) -> str:
    """What is wrong with an address the pattern refused, in a few words."""
    rest = address.removeprefix("ray://")
    if not rest:
        return "no host"
    if "://" in rest:
        return "the only scheme is ray://"
    host, colon, port = rest.rpartition(":")
    if not colon:
        return "no port"
    if not host:
        return "no host"
    if not port:
        return "no port after the colon"
    if not port.isdigit():
        return "the port is not a number"
    return "not a host name or IP address"


def parse_runtime_env(text: str | None) -> dict[str, Any] | None:
    """``--runtime-env``: a JSON object, or ``@FILE`` holding one (Ray's runtime_env dict);
    the file is read through :mod:`margo_gtp.textfile` (a regular file, at most
    :data:`MAX_RUNTIME_ENV_BYTES`)."""
    if not text:
        return None
    source = text
    if text.startswith("@"):
        try:
            source = textfile.read_text(text[1:], MAX_RUNTIME_ENV_BYTES)
        except textfile.TextFileError as error:
            raise ValueError(f"--runtime-env: cannot read {text[1:]}: {error.reason}") from None
    try:
        value = json.loads(source)
    except (ValueError, RecursionError):
        raise ValueError(f"--runtime-env must be a JSON object or @FILE: {_short(text)}") from None
    if not isinstance(value, dict):
        raise ValueError(f"--runtime-env must be a JSON object or @FILE: {_short(text)}")
    return value


def _short(text: str, limit: int = 80) -> str:
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text)} characters)"
