"""``python -m explorer [--port N]``: serve the Model Explorer on 127.0.0.1 until Ctrl-C."""

from __future__ import annotations

import argparse

from explorer.reference import reference_source
from explorer.server import serve


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m explorer", description=__doc__)
    parser.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: any free port)")
    args = parser.parse_args(argv)
    serve(reference_source(), args.port, "the reference attention")


if __name__ == "__main__":
    main()
