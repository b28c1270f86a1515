# corpus: DQN learning-rate controller (dqn.py) evaluates on a second SGD env (sgd_env.py) inside torch.no_grad(); the env's reset trains its inner model there, so loss.mean().backward() has no grad_fn
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/automl/DACBench/issues/95
import torch

from dqn import DQN
from sgd_env import SGDEnv


def main():
    torch.manual_seed(0)
    env, eval_env = SGDEnv(seed=0), SGDEnv(seed=1)
    agent = DQN(state_dim=2, action_dim=len(SGDEnv.lr_choices), env=env, eval_env=eval_env)
    eval_rewards = agent.train(episodes=4, eval_every=2, eval_eps=1)  # also: GG106
    print("eval rewards:", eval_rewards)


if __name__ == "__main__":
    main()
