"""Bots that learn a game from its file: features, model files and self-play training.

- `features`: the vector a value network reads, built from `state.view(seat)` alone and
  turned so that the seat it is for comes first (one network plays every seat);
- `model`: the model file (plain arrays in an `.npz`, a JSON header, no pickle) and its
  numpy evaluation, which is all that play needs;
- `train`: TD(lambda) self-play training with scikit-learn (the extra `rulekit[train]`).
"""
