"""Character sheets: read, checked against the rulebook, and written back value by value.

`character` holds the `Sheet` and its files; `parsing` reads a file once with where each
field is written (`field_positions`); `validation` and `rules` check its values against
the rulebook's sheet block; `key_warnings` flags keys that read otherwise than they are;
`writer` (with `json_splice`) writes only the changed values back into the file's text.
"""
