# corpus: Gymnasium-tutorial REINFORCE: agent.py keeps each step's log-prob (with graph) in self.probs for one episode, backpropagates their discounted sum once and clears the list; the tracker (utils.py) stores floats; correct
# source: https://github.com/Farama-Foundation/Gymnasium/issues/1336
import numpy as np
import torch

from agent import REINFORCE
from utils import RewardTracker

OBS_DIMS, ACTION_DIMS, HORIZON = 5, 1, 10


def run_episode(agent, rng):
    obs = rng.standard_normal(OBS_DIMS).astype(np.float32)
    episode_return = 0.0
    for t in range(HORIZON):
        action = agent.sample_action(obs)
        reward = float(-np.abs(action - obs[:ACTION_DIMS]).sum())
        obs = (obs + 0.1 * rng.standard_normal(OBS_DIMS)).astype(np.float32)
        agent.rewards.append(reward)
        episode_return += reward
    return episode_return


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    agent = REINFORCE(OBS_DIMS, ACTION_DIMS)
    tracker = RewardTracker()
    for episode in range(15):
        episode_return = run_episode(agent, rng)
        tracker.add(episode_return, agent.update())
    print("mean return:", round(tracker.mean_return, 3))


if __name__ == "__main__":
    main()
