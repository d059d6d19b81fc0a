"""The notebooks, their release, figures and model, the explorer and the self-learner's run (notebooks/, kit/release, model/, explorer/)."""
