"""``python -m sleuth`` is the ``sleuth`` console script."""

from sleuth.cli import main

raise SystemExit(main())
