# corpus: PARL-style DDPG: the agent (parl_mini/agent.py) turns the actor output into numpy with .detach() before .numpy(), the replay memory stores numpy arrays, and the actor loss is built from a fresh forward after the critic step; correct
# source: https://github.com/PaddlePaddle/PARL/pull/672
import numpy as np
import torch

from parl_mini import DDPG, MujocoAgent, MujocoModel, ReplayMemory

OBS_DIM, ACT_DIM = 6, 2


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = MujocoModel(OBS_DIM, ACT_DIM)
    agent = MujocoAgent(DDPG(model), ACT_DIM)
    rpm = ReplayMemory(1000, OBS_DIM, ACT_DIM)
    obs = rng.standard_normal(OBS_DIM).astype(np.float32)
    episode_reward, losses = 0.0, []
    for t in range(60):
        action = agent.sample(obs)
        next_obs = (obs + 0.1 * rng.standard_normal(OBS_DIM)).astype(np.float32)
        reward = float(-np.square(action).sum())
        rpm.append(obs, action, reward, next_obs, 0.0)
        episode_reward += reward
        obs = next_obs
        if rpm.size() >= 32:
            losses.append(agent.learn(*rpm.sample_batch(32)))
    print("episode reward:", round(episode_reward, 3), "last losses:", losses[-1])


if __name__ == "__main__":
    main()
