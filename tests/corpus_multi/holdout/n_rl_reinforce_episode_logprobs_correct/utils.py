from collections import deque


class RewardTracker:
    """Keeps the last episode returns as plain floats."""

    def __init__(self, maxlen=50):
        self.returns = deque(maxlen=maxlen)
        self.losses = []

    def add(self, episode_return, loss_value):
        self.returns.append(float(episode_return))
        self.losses.append(float(loss_value))

    @property
    def mean_return(self):
        return sum(self.returns) / max(len(self.returns), 1)
