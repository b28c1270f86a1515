# corpus: pfrl-style DQN agent (agent.py) with a NAF action value (action_value.py) whose greedy_actions runs the mu head lazily; batch_act reads it after the no_grad block and calls .numpy() on a tensor requiring grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/pfnet/pfrl/issues/40
import numpy as np
import torch

from agent import DQN
from q_functions import FCQuadraticStateQFunction

N_ENVS, OBS_SIZE, ACTION_SIZE = 4, 6, 2


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    q_func = FCQuadraticStateQFunction(OBS_SIZE, ACTION_SIZE)
    opt = torch.optim.Adam(q_func.parameters(), lr=1e-3)
    agent = DQN(q_func, opt)

    obs = rng.standard_normal((N_ENVS, OBS_SIZE)).astype(np.float32)
    transitions = []
    for t in range(5):
        actions = agent.batch_act(obs)  # also: GG110
        next_obs = (obs + 0.1 * rng.standard_normal(obs.shape)).astype(np.float32)
        rewards = -np.square(actions).sum(axis=1, keepdims=True).astype(np.float32)
        transitions.append((obs, actions, rewards, next_obs))
        obs = next_obs

    o, a, r, n = (torch.from_numpy(np.concatenate(x)) for x in zip(*transitions))
    print("loss:", agent.update((o, a, r, n, torch.zeros_like(r))))


if __name__ == "__main__":
    main()
