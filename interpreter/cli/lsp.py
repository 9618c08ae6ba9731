"""`rulebook lsp`: the language server for editors, on standard input and output."""

from __future__ import annotations

import sys

from dsl.messages import tr
from interpreter.cli.terminal import unescaped


def add_parser(commands) -> None:
    commands.add_parser(
        "lsp",
        help=tr("the language server for editors (LSP, on standard input and output)"),
        description=tr(
            "Speak the Language Server Protocol on standard input and output: diagnostics as "
            "you type, hover, completion, go to definition, references, rename, the outline, "
            "quick fixes and formatting. An editor starts it (editors/vscode/)."
        ),
    )


def cmd_lsp(args) -> int:  # noqa: ARG001 (every command's handler takes its parsed arguments)
    from interpreter.lsp.server import serve  # pygls is loaded only by the command

    sys.stdout = unescaped(sys.stdout)  # its standard output is the protocol, as it is
    serve()
    return 0
