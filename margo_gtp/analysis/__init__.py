"""Game analysis, review and ownership: libraries over the search, below the GTP server."""
