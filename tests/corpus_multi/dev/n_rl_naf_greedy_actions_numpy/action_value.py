import functools

import torch


def lazy_property(fn):
    attr = "_lazy_" + fn.__name__

    @property
    @functools.wraps(fn)
    def wrapper(self):
        if not hasattr(self, attr):
            setattr(self, attr, fn(self))
        return getattr(self, attr)

    return wrapper


class QuadraticActionValue:
    """NAF-style Q(s, a) = v(s) - 0.5 (a - mu(s))^T P(s) (a - mu(s)).

    mu is produced lazily by the action head module the first time it is asked for.
    """

    def __init__(self, features, mu_head, mat, v, min_action, max_action):
        self.features = features
        self.mu_head = mu_head
        self.mat = mat
        self.v = v
        self.min_action = min_action
        self.max_action = max_action

    @lazy_property
    def greedy_actions(self):
        mu = torch.tanh(self.mu_head(self.features))
        scale = (self.max_action - self.min_action) / 2
        return self.min_action + (mu + 1) * scale

    def evaluate_actions(self, actions):
        diff = (actions - self.greedy_actions).unsqueeze(-1)
        quad = diff.transpose(1, 2) @ self.mat @ diff
        return self.v - 0.5 * quad.view(-1, 1)

    @property
    def max(self):
        return self.v
