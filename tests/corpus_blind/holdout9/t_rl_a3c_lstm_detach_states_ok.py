# corpus: A3C-LSTM worker (rl_a3c_pytorch style): the LSTM (hx, cx) carried across rollout segments is reset to zeros when the episode ends and otherwise re-bound to hx.detach()/cx.detach() before each segment, then one combined policy+value loss is backpropagated per segment (correct)
# source: https://github.com/dgriff777/rl_a3c_pytorch/issues/8
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)


class FakeAtariEnv:
    def __init__(self, obs_dim=8, n_actions=4, horizon=30):
        self.obs_dim, self.n_actions, self.horizon, self.t = obs_dim, n_actions, horizon, 0

    def reset(self):
        self.t = 0
        return np.random.randn(self.obs_dim).astype(np.float32)

    def step(self, action):
        self.t += 1
        return np.random.randn(self.obs_dim).astype(np.float32), float(action == 0), self.t >= self.horizon


class A3Clstm(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=32):
        super().__init__()
        self.fc = nn.Linear(obs_dim, hidden)
        self.lstm = nn.LSTMCell(hidden, hidden)
        self.critic_linear = nn.Linear(hidden, 1)
        self.actor_linear = nn.Linear(hidden, n_actions)

    def forward(self, inputs):
        x, (hx, cx) = inputs
        x = F.relu(self.fc(x))
        hx, cx = self.lstm(x, (hx, cx))
        return self.critic_linear(hx), self.actor_linear(hx), (hx, cx)


class Agent:
    def __init__(self, model, env, hidden=32):
        self.model, self.env, self.hidden = model, env, hidden
        self.state = torch.from_numpy(env.reset()).unsqueeze(0)
        self.hx, self.cx = torch.zeros(1, hidden), torch.zeros(1, hidden)
        self.done = True
        self.values, self.log_probs, self.rewards, self.entropies = [], [], [], []

    def action_train(self):
        value, logit, (self.hx, self.cx) = self.model((self.state, (self.hx, self.cx)))
        prob = F.softmax(logit, dim=1)
        log_prob = F.log_softmax(logit, dim=1)
        entropy = -(log_prob * prob).sum(1)
        action = prob.multinomial(1).detach()
        obs, reward, self.done = self.env.step(action.item())
        self.state = torch.from_numpy(obs).unsqueeze(0)
        self.values.append(value)
        self.log_probs.append(log_prob.gather(1, action))
        self.rewards.append(reward)
        self.entropies.append(entropy)

    def clear_actions(self):
        self.values, self.log_probs, self.rewards, self.entropies = [], [], [], []


def train(num_segments=5, num_steps=8, gamma=0.99, tau=1.0):
    env = FakeAtariEnv()
    model = A3Clstm(env.obs_dim, env.n_actions)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    player = Agent(model, env)
    for seg in range(num_segments):
        if player.done:
            player.cx = torch.zeros(1, player.hidden)
            player.hx = torch.zeros(1, player.hidden)
            player.state = torch.from_numpy(env.reset()).unsqueeze(0)
            player.done = False
        else:
            player.cx = player.cx.detach()
            player.hx = player.hx.detach()
        for step in range(num_steps):
            player.action_train()
            if player.done:
                break
        R = torch.zeros(1, 1)
        if not player.done:
            value, _, _ = model((player.state, (player.hx, player.cx)))
            R = value.detach()
        player.values.append(R)
        policy_loss, value_loss = 0, 0
        gae = torch.zeros(1, 1)
        for i in reversed(range(len(player.rewards))):
            R = gamma * R + player.rewards[i]
            advantage = R - player.values[i]
            value_loss = value_loss + 0.5 * advantage.pow(2)
            delta_t = player.rewards[i] + gamma * player.values[i + 1].detach() - player.values[i].detach()
            gae = gae * gamma * tau + delta_t
            policy_loss = policy_loss - player.log_probs[i] * gae - 0.01 * player.entropies[i]
        optimizer.zero_grad()
        (policy_loss + 0.5 * value_loss).sum().backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 40.0)
        optimizer.step()
        print(seg, policy_loss.sum().item(), value_loss.sum().item())
        player.clear_actions()


if __name__ == "__main__":
    train()
