"""`python -m interpreter.cli`: the `rulebook` command, where its script is not installed."""

from __future__ import annotations

import sys

from interpreter.cli.main import main

sys.exit(main())
