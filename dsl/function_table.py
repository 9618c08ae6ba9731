"""`python -m dsl.function_table --reference`: the reference's table of built-in functions.

A tool for developers (in English): its output is the table in grammar/README.md, which
tests/test_functions.py holds equal to the registry's (dsl.functions).
"""

from __future__ import annotations

import argparse
import sys

from dsl.functions import reference_table


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m dsl.function_table")
    parser.add_argument("--reference", action="store_true", required=True)
    parser.parse_args(argv)
    sys.stdout.write(reference_table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
