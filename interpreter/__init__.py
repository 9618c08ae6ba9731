"""The back end: runs a rulebook's AST against a character sheet and a dice source."""
