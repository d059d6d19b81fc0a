"""What the example class writes for the written questions (kit/written.py), by kind of answer.

"full" answers meet every point of the rubric, "partial" ones miss some; the stand-in
teaching assistant (kit/teaching_assistant.py) marks them when `make demo` runs.
Keyed by the written question's id.
"""

FULL = {
    "written_one_pass": (
        "Each position i is trained to predict the next token, i + 1. The causal mask gives every key "
        "after i a weight of exactly zero, so output i is computed from tokens 0 to i only, as if the "
        "sentence ended there. That is why the whole true sentence can go in at once and a single pass "
        "gives the loss of every position. Without the mask, position i could attend to token i + 1 "
        "and simply copy it: the target would leak and the model would learn to copy, not to predict."),
    "written_injection": (
        "For attention, a token of the instructions and a token of the web page are just tokens: keys "
        "and values in the same sequence, and a query weighs each by how well it matches. Nothing marks "
        "which source to trust. So page text written like an instruction can draw weight and steer the "
        "answer as if the user had written it; any preference for the real instructions was learned from "
        "data. A block mask works on positions only: it could keep some tokens from reading the page, but "
        "the answer must read the page to use it, and a mask cannot tell harmful content from harmless."),
    "written_convex": (
        "Each output row is a weighted average of the value rows it may see, with weights that are never "
        "negative and sum to one, so it lies in their convex hull: attention can select one row or blend "
        "several. It cannot go outside: if every visible value row has a 2 in some place, no output can "
        "have a number larger than 2 there. Everything new comes from the matrices around the mix, W_v "
        "before and W_o after, and from the MLP that follows."),
}

PARTIAL = {
    "written_one_pass": (
        "The model predicts the next token at every position. The mask hides the tokens that come later, "
        "so all positions can be done together."),
    "written_injection": (
        "A prompt injection is text on a web page that tells the model to do something else, and the "
        "model may follow it."),
    "written_convex": (
        "Attention mixes the value vectors with weights that add up to one, so the output is a kind of "
        "average of them."),
}

ANSWERS = {"full": FULL, "partial": PARTIAL}
