"""Writing rules in an editor: `rulebook lsp` and the page's editor answer from here.

Each feature is a function of a document's text, its path and a character offset
(`diagnostics`, `hover`, `complete`, `navigate`, `outline`, `fixes`); `server` speaks the
Language Server Protocol with them, and the web page's editor asks the same ones.
"""
