"""``python -m core.cli``: the same as the ``toolatlas`` command."""

from core.cli import main

raise SystemExit(main())
