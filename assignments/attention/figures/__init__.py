"""The chapter's pictures, drawn from your own functions.

Each figure calls the functions *you* wrote on the chapter's worked example
and draws what they return, so a wrong function looks wrong:

* while a function it needs is not started, the figure is a placeholder that
  says what to write (a box of text: matplotlib is loaded only to draw);
* once your drawing differs from the chapter's, the chapter's drawing is put
  beside yours, every difference is marked (a dashed outline and ≠ on a grid,
  a labelled connector on a curve) and the check's message is printed under it;
* when the two agree, only yours is drawn and the title says so.

Nothing here computes attention. The chapter's side of every picture is an
expected value of the visible checks (``worked_example.npz``, the file the
check cells read) or a number the chapter prints.

Colours come from viridis, which runs from dark to light in greyscale and
reads the same for colour-blind eyes; every value that matters is also
written as a label, a pattern or a marker shape.

One module per notebook holds that notebook's figures: ``tokens`` (01),
``scores`` (02), ``softmax`` (03), ``heads`` (04), ``masks`` (05),
``layer_cost`` (07) and ``model_heads`` (09: every head of the trained
model, each weight written on its cell). They draw with ``drawing`` (a figure, its marks, the PNG
shown with its alt text) in the colours of ``style``, judge your functions
with ``attempts`` and wait for them with ``placeholders``. A notebook calls
``figures.<figure>(...)``: the figures are all here, by name.
"""

from .heads import two_heads
from .layer_cost import cost, memory
from .masks import block_mask, causal_mask, padding_mask
from .model_heads import every_head
from .scores import largest_weight, score_grid, score_spread
from .softmax import convolution_vs_attention, cube_weights, near_and_far, softmax_lead, weight_grid
from .tokens import tokens_before_after

__all__ = ["tokens_before_after", "score_grid", "score_spread", "largest_weight", "cube_weights",
           "weight_grid", "softmax_lead", "convolution_vs_attention", "near_and_far", "two_heads", "causal_mask",
           "padding_mask", "block_mask", "cost", "memory", "every_head"]
