# corpus: Hands-on-RL actor-critic whose update() in agent.py was regrouped critic-first; the regrouping dropped actor_optimizer.zero_grad(), so actor gradients accumulate over every episode
# source: https://github.com/boyu-ai/Hands-on-RL/issues/92
import torch

import rl_utils
from agent import ActorCritic


def main():
    torch.manual_seed(0)
    env = rl_utils.ToyEnv(seed=0)
    agent = ActorCritic(state_dim=4, hidden_dim=32, action_dim=2,
                        actor_lr=1e-3, critic_lr=1e-2, gamma=0.98)
    returns = rl_utils.train_on_policy_agent(env, agent, num_episodes=20)
    print("mean return:", sum(returns) / len(returns))


if __name__ == "__main__":
    main()
