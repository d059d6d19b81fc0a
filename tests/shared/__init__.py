"""Helpers the rooms share, each job in one module (the rooms import from here and from themselves alone)."""
