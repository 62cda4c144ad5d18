"""Build the optional native rules core (margo_gtp/engine/_native.c); everything else is in pyproject.toml.

``optional=True``: when the C compiler or the Python headers are missing, setuptools prints
one "building extension ... failed" warning and the install goes on with the pure-Python
core (see docs/native-core.md). Plain CPython C API, C99: no build or runtime dependency.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "margo_gtp.engine._native",
            ["margo_gtp/engine/_native.c"],
            optional=True,
            extra_compile_args=["-O2", "-std=gnu99", "-ffp-contract=off"],
        )
    ]
)
