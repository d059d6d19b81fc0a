"""The Model Explorer's server: one page and one JSON endpoint, on loopback only.

    GET /                     the page (page.html)
    GET /explorer.js          its script
    GET /api/run?prompt=the+cat+sat&weights=trained|random
                              every layer's and head's scores, mask and weights

The JSON of /api/run: ``words`` (n,), ``vocab``, ``weights`` ("trained" or
"random"), ``kinds`` [layer][head], and ``layers``: a list of L layers, each a
list of H heads, each ``{"scores": n×n, "weights": n×n}``; ``mask`` is n×n
with ``null`` for −∞ (JSON has no infinity). A prompt the model cannot read
gives status 400 and ``{"error": message}``.
"""

from __future__ import annotations

import json
import threading
from functools import lru_cache
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import numpy as np

from model.heads import classify_head
from model.reference import run, trained, untrained
from model.transformer import Model, tokenize

HERE = Path(__file__).resolve().parent
STATIC = {"/": ("page.html", "text/html; charset=utf-8"),
          "/explorer.js": ("explorer.js", "text/javascript; charset=utf-8")}
DEFAULT_PROMPT = "the cat sat on the mat . the cat sat on the mat"


@lru_cache(maxsize=None)
def models() -> dict[str, Model]:
    """The two switchable weight sets; 'random' is where training started from."""
    model = trained()
    return {"trained": model, "random": untrained(model.seed)}


def _grid(a: np.ndarray) -> list:
    return np.round(a.astype(float), 4).tolist()


def explore(prompt: str, weights: str = "trained") -> dict:
    """The JSON answer of /api/run (see the module docstring). Raises ValueError for a bad request."""
    if weights not in models():
        raise ValueError(f"weights must be 'trained' or 'random', got {weights!r}")
    model = models()[weights]
    tokens = tokenize(prompt, model.vocab)
    result = run(model, tokens)
    return {
        "prompt": prompt,
        "weights": weights,
        "words": [model.vocab[t] for t in tokens],
        "vocab": list(model.vocab[1:]),
        "mask": [[None if np.isneginf(v) else float(v) for v in row] for row in result.mask],
        "layers": [[{"scores": _grid(S), "weights": _grid(A)} for S, A in zip(layer_scores, layer_weights)]
                   for layer_scores, layer_weights in zip(result.scores, result.weights)],
        "kinds": [[classify_head(A, tokens) for A in layer] for layer in result.weights],
    }


class Handler(BaseHTTPRequestHandler):
    server_version = "ModelExplorer/1"

    def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
        url = urlparse(self.path)
        if url.path in STATIC:
            name, content_type = STATIC[url.path]
            self._send(HTTPStatus.OK, (HERE / name).read_bytes(), content_type)
        elif url.path == "/api/run":
            query = parse_qs(url.query)
            try:
                answer, status = explore(query.get("prompt", [DEFAULT_PROMPT])[0],
                                         query.get("weights", ["trained"])[0]), HTTPStatus.OK
            except ValueError as e:
                answer, status = {"error": str(e)}, HTTPStatus.BAD_REQUEST
            self._send(status, json.dumps(answer).encode(), "application/json")
        else:
            self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain; charset=utf-8")

    def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args) -> None:  # quiet: a page load is not news
        pass


def start(port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """Serve on 127.0.0.1:`port` (0: any free port) from a background thread.

    Returns the server (stop it with ``server.shutdown()``) and the page's URL.
    """
    models()  # load the weights before the first request, so a bad file fails here
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True, name="model-explorer").start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"
