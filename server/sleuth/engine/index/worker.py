"""Entry point of a build worker process: ``python -m sleuth.engine.index.worker DB LIST MAX_BYTES SHARD``.

A module of its own so that running it never re-imports :mod:`sleuth.engine.index.builder` as
``__main__`` (see :func:`sleuth.engine.index.builder.worker_main` for the protocol).
"""

import sys

from sleuth.engine.index.builder import worker_main

if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))
