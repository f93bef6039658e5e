"""Command line: ``python -m spatialbook check`` prints the self-check table."""

import argparse
import sys

from . import check


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spatialbook", description=__doc__)
    parser.add_argument("command", choices=["check"], help="check: verify every invariant and print a table")
    parser.parse_args(argv)
    return check.main()


if __name__ == "__main__":
    sys.exit(main())
