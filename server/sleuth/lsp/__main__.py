"""``python -m sleuth.lsp [--tcp HOST:PORT | --ws HOST:PORT]``: the server without the CLI front end."""

from sleuth.lsp.main import main

raise SystemExit(main())
