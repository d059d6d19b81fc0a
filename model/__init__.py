"""The explorer's model: a two-layer, four-head transformer trained on a toy grammar.

- `grammar`: the toy language (sentences and repeated spans), seeded;
- `transformer`: the model in NumPy, its weights file and its forward pass,
  which takes the attention functions as arguments (shipped to students);
- `reference`: the kit's own way to run it, on the reference attention;
- `heads`: what a head attends to (the answer key of notebook 09);
- `train`: ``python -m model.train`` writes ``model/weights.npz`` (needs torch).
"""
