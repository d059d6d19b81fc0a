"""The Model Explorer's server: one page and one JSON endpoint, on loopback only.

    GET /                     the page (explorer.html)
    GET /explorer.js          its script
    GET /api/run?prompt=the+cat+sat&weights=trained|random
                              every layer's and head's scores, mask and weights

The JSON of /api/run: ``words`` (n,), ``vocab``, ``weights`` ("trained" or
"random"), ``kinds`` [layer][head] (null when there is no `classify` yet), and
``layers``: a list of L layers, each a list of H heads, each ``{"scores": n×n,
"weights": n×n}``; ``mask`` is n×n with ``null`` for −∞ (JSON has no infinity).
A prompt the model cannot read, or attention functions that fail, give status
400 and ``{"error": message}``.

This file imports nothing of the kit: what it shows comes in a `Source`. The
kit serves the reference's attention (``python -m explorer``, explorer/reference.py);
the student release ships this file as ``explorer_server.py`` beside
``explorer.py``, which serves the student's own (``python explorer.py``).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs, urlparse

import numpy as np

HERE = Path(__file__).resolve().parent
STATIC = {"/": ("explorer.html", "text/html; charset=utf-8"),
          "/explorer.js": ("explorer.js", "text/javascript; charset=utf-8")}
DEFAULT_PROMPT = "the cat sat on the mat . the cat sat on the mat"


@dataclass(frozen=True)
class Source:
    """What the page shows: the weight sets it switches between, and how to run and read them."""
    models: dict[str, Any]  # "trained" and "random" → a Model (model/transformer.py)
    run: Callable  # (model, tokens (n,) int) → a Run: scores, mask and weights of every head
    tokenize: Callable  # (prompt, vocab) → tokens (n,) int; ValueError for a word it does not know
    classify: Callable | None = None  # (A (n, n), tokens) → the head's kind; None: no kinds shown


def _grid(a: np.ndarray) -> list:
    return np.round(np.asarray(a, dtype=float), 4).tolist()


def _kinds(source: Source, weights, tokens) -> list | None:
    """[layer][head] → kind, or None while `classify` is missing or not started."""
    if source.classify is None:
        return None
    try:
        return [[str(source.classify(A, tokens)) for A in layer] for layer in weights]
    except NotImplementedError:
        return None


def explore(source: Source, prompt: str, weights: str = "trained") -> dict:
    """The JSON answer of /api/run (see the module docstring). Raises ValueError for a bad request."""
    if weights not in source.models:
        raise ValueError(f"weights must be one of {', '.join(map(repr, source.models))}, got {weights!r}")
    model = source.models[weights]
    tokens = source.tokenize(prompt, model.vocab)
    try:
        result = source.run(model, tokens)
    except NotImplementedError as e:
        raise ValueError(f"the grids appear once your attention functions are written: {e}") from None
    except Exception as e:  # the attention functions' own bug: say which error, keep serving
        raise ValueError(f"the attention functions stopped the model: {type(e).__name__}: {e}") from None
    return {
        "prompt": prompt,
        "weights": weights,
        "words": [model.vocab[t] for t in tokens],
        "vocab": list(model.vocab[1:]),
        "mask": [[None if np.isneginf(v) else float(v) for v in row] for row in np.asarray(result.mask)],
        "layers": [[{"scores": _grid(S), "weights": _grid(A)} for S, A in zip(layer_scores, layer_weights)]
                   for layer_scores, layer_weights in zip(result.scores, result.weights)],
        "kinds": _kinds(source, result.weights, tokens),
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
                answer, status = explore(self.server.source, query.get("prompt", [DEFAULT_PROMPT])[0],
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


def start(source: Source, port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """Serve `source` on 127.0.0.1:`port` (0: any free port) from a background thread.

    Returns the server (stop it with ``server.shutdown()``) and the page's URL.
    """
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.source = source
    threading.Thread(target=server.serve_forever, daemon=True, name="model-explorer").start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def serve(source: Source, port: int, what: str) -> None:
    """Serve until Ctrl-C, after printing the page's URL (the command line of both explorers)."""
    server, url = start(source, port)
    print(f"Model Explorer ({what}): {url}  (Ctrl-C stops it)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
