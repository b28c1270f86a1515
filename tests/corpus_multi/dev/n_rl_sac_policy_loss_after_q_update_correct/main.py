# corpus: SAC agent (sac/agent.py) steps both Q optimizers through utils.update_params and only then computes the policy loss from a fresh critic forward, so nothing stepped is saved by a pending graph; correct
# source: https://github.com/toshikwa/soft-actor-critic.pytorch/issues/1
import numpy as np
import torch

from sac import Memory, SacAgent

STATE_DIM, ACTION_DIM = 5, 2


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    agent = SacAgent(STATE_DIM, ACTION_DIM)
    memory = Memory(500, STATE_DIM, ACTION_DIM)
    state = rng.standard_normal(STATE_DIM).astype(np.float32)
    for step in range(40):
        action = agent.explore(state)
        next_state = (state + 0.1 * rng.standard_normal(STATE_DIM)).astype(np.float32)
        reward = float(-np.square(action).sum())
        memory.append(state, action, reward, next_state, 0.0)
        state = next_state
        if memory.n >= 16:
            stats = agent.learn(memory.sample(16))
    print(stats)


if __name__ == "__main__":
    main()
