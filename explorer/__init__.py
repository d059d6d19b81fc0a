"""The Model Explorer: the small model's real attention, in a local web page.

``python -m explorer [--port N]`` serves it on 127.0.0.1 and prints its URL.
"""
