"""The Model Explorer on your own attention: run ``python explorer.py`` in this folder.

Serves a page on http://127.0.0.1:8765/ (``--port N``; 0: any free port) until
Ctrl-C, on this machine only: every head of the small trained model
(model_weights.npz) and of the random weights its training started from,
computed with the attention you wrote in notebooks 02 to 05, each head
labelled with your `classify_head` of notebook 09 once it is written.
Run it again after you change a function: it loads your notebooks when it starts.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import explorer_model
from explorer_server import Source, serve
from workbook import my, your_attention

HERE = Path(__file__).resolve().parent


def your_source() -> Source:
    """The model on your attention, classified by your classify_head."""
    pieces = your_attention()
    trained = explorer_model.load(HERE / "model_weights.npz")
    models = {"trained": trained, "random": explorer_model.random_weights(trained.seed, trained.vocab)}
    try:
        classify = my("09_model_explorer", "classify_head")
    except NameError:  # its cell was deleted: the page shows the heads without their kinds
        classify = None
    return Source(models, run=lambda model, tokens: explorer_model.forward(model, tokens, pieces),
                  tokenize=explorer_model.tokenize, classify=classify)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python explorer.py", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: any free port)")
    args = parser.parse_args(argv)
    serve(your_source(), args.port, "your attention")


if __name__ == "__main__":
    main()
