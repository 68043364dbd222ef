"""``python -m sleuth`` is the ``sleuth`` console script."""

if __name__ == "__main__":  # a worker that imports this module (multiprocessing's spawn) must not run the CLI
    from sleuth.cli import main

    raise SystemExit(main())
