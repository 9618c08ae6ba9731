"""The `rulebook` command: a thin shell over the public API.

One module per command: `rulebook NAME` is `cli/NAME.py`, with its parser (`add_parser`)
and `cmd_NAME`; `arguments` for the options several parsers share, `options` for reading
them, `render` for odds as text, `main` to register the commands and dispatch.

Exit codes: 0 ok (an action that runs and fails its roll is ok), 2 usage (a bad option
or parameter), 3 a rulebook, expression or sheet that is not valid, 4 an evaluation
that could not finish (a limit, forced dice, a failed `require`, a short resource).
"""

from __future__ import annotations

from interpreter.cli.main import main

__all__ = ["main"]
