"""Mistake: projections in the wrong order."""

import numpy as np


def project_qkv(X, W_q, W_k, W_v):
    X = np.asarray(X)
    Ws = [np.asarray(W) for W in (W_q, W_k, W_v)]
    for a in (X, *Ws):
        if a.dtype.kind not in "fiu":
            raise ValueError(f"inputs must hold numbers, got dtype {a.dtype}")
    if X.ndim < 2:
        raise ValueError(f"X must be (..., n, d), got shape {X.shape}")
    d = X.shape[-1]
    for name, W in zip(("W_q", "W_k", "W_v"), Ws):
        if W.ndim != 2 or W.shape[0] != d:
            raise ValueError(f"{name} must be ({d}, _), got {W.shape}")
    if Ws[0].shape[1] != Ws[1].shape[1]:
        raise ValueError(f"W_q and W_k must have the same width, got {Ws[0].shape} and {Ws[1].shape}")
    X, *Ws = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in (X, *Ws))
    dtype = np.result_type(X, *Ws)
    X = X.astype(dtype)
    Q = X @ Ws[0].astype(dtype)
    K = X @ Ws[1].astype(dtype)
    V = X @ Ws[2].astype(dtype)
    return K, Q, V
