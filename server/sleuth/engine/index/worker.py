"""Entry point of a build worker process: ``python -m sleuth.engine.index.worker DB LIST MAX_BYTES SHARD``.

A module of its own so that running it never re-imports :mod:`sleuth.engine.index.builder` as
``__main__`` (see :func:`sleuth.engine.index.builder.worker_main` for the protocol).
"""

import os
import sys

from sleuth.engine.index.builder import worker_main

# A build takes every core for a minute on a big tree; searches sent meanwhile take the cold path and
# must not queue behind it: the workers run at a lower priority, so the scan's processes get the CPU
# first and the build goes on at full speed whenever nothing else runs (issue 14.2).
BUILD_NICENESS = 10

if __name__ == "__main__":
    if hasattr(os, "nice"):
        try:
            os.nice(BUILD_NICENESS)
        except OSError:
            pass
    sys.exit(worker_main(sys.argv[1:]))
