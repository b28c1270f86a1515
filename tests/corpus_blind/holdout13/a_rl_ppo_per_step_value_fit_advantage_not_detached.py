# corpus: hand-rolled PPO: V(s) and Q(s,a) approximators are fitted with their own MSE+SGD at every time step, the advantage A = Q - V taken from those same forward passes feeds each step's clipped surrogate, and the policy's SGA at episode end backpropagates through value graphs the per-step value backward already freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://discuss.pytorch.org/t/pytorch-runtimeerror-trying-to-backward-through-the-graph-a-second-time/191396
import numpy as np
import torch
import torch.nn as nn


class ValueFunction(nn.Module):
    def __init__(self, in_dim, lr=1e-2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 16), nn.Tanh(), nn.Linear(16, 1))
        self.optimizer = torch.optim.SGD(self.parameters(), lr=lr)

    def forward(self, x):
        return self.net(x)

    def mse_loss(self, prediction, target):
        return (prediction - target).pow(2).mean()

    def sgd(self, prediction, target):
        loss = self.mse_loss(prediction, target)
        self.optimizer.zero_grad()
        loss.backward()  # also: GG102
        self.optimizer.step()
        return loss.item()


class PolicyNetwork(nn.Module):
    def __init__(self, obs_dim, n_actions, lr=1e-2, clip=0.2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 16), nn.Tanh(), nn.Linear(16, n_actions))
        self.optimizer = torch.optim.Adam(self.parameters(), lr=lr)
        self.clip = clip

    def forward(self, obs):
        return torch.distributions.Categorical(logits=self.net(obs))

    def clipped_surrogate(self, obs, action, old_log_prob, advantage):
        ratio = torch.exp(self(obs).log_prob(action) - old_log_prob)
        clipped = torch.clamp(ratio, 1 - self.clip, 1 + self.clip)
        return torch.min(ratio * advantage, clipped * advantage)

    def sga(self, surrogates):
        objective = torch.stack(surrogates).mean()
        self.optimizer.zero_grad()
        (-objective).backward()  # expect: GG102
        self.optimizer.step()


class ToyEnv:
    def __init__(self, obs_dim=4, horizon=12):
        self.obs_dim, self.horizon = obs_dim, horizon

    def reset(self):
        self.t = 0
        self.state = np.random.randn(self.obs_dim).astype(np.float32)
        return self.state

    def step(self, action):
        self.t += 1
        reward = float(action == int(self.state[0] > 0))
        self.state = (0.9 * self.state + 0.1 * np.random.randn(self.obs_dim)).astype(np.float32)
        return self.state, reward, self.t >= self.horizon


def run_episode(env, policy, v_fn, q_fn, gamma=0.99):
    obs = torch.from_numpy(env.reset())
    surrogates, done = [], False
    while not done:
        with torch.no_grad():
            dist = policy(obs)
            action = dist.sample()
            old_log_prob = dist.log_prob(action)
        next_obs, reward, done = env.step(action.item())
        next_obs = torch.from_numpy(next_obs)
        one_hot = nn.functional.one_hot(action, 2).float()
        v = v_fn(obs)
        q = q_fn(torch.cat([obs, one_hot]))
        with torch.no_grad():
            target = reward + gamma * (0.0 if done else v_fn(next_obs).item())
        v_fn.sgd(v, torch.tensor([target]))
        q_fn.sgd(q, torch.tensor([target]))
        advantage = q - v  # also: GG102
        surrogates.append(policy.clipped_surrogate(obs, action, old_log_prob, advantage))
        obs = next_obs
    policy.sga(surrogates)


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    env = ToyEnv()
    policy = PolicyNetwork(4, 2)
    v_fn, q_fn = ValueFunction(4), ValueFunction(6)
    for episode in range(3):
        run_episode(env, policy, v_fn, q_fn)
        print("episode", episode)


if __name__ == "__main__":
    main()
