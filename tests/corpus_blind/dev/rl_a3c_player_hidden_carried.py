# corpus: A3C player keeps its LSTM state in self.hx/self.cx across n-step updates without cutting it from the previous update's graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/dgriff777/rl_a3c_pytorch/issues/19
import torch
import torch.nn as nn
import torch.nn.functional as F


class A3Clstm(nn.Module):
    def __init__(self, obs_dim, num_actions, hidden=32):
        super().__init__()
        self.fc = nn.Linear(obs_dim, hidden)
        self.lstm = nn.LSTMCell(hidden, hidden)
        self.critic_linear = nn.Linear(hidden, 1)
        self.actor_linear = nn.Linear(hidden, num_actions)

    def forward(self, inputs):
        x, (hx, cx) = inputs
        x = F.relu(self.fc(x))
        hx, cx = self.lstm(x, (hx, cx))
        return self.critic_linear(hx), self.actor_linear(hx), (hx, cx)


class Agent:
    def __init__(self, model, obs_dim):
        self.model = model
        self.obs_dim = obs_dim
        self.state = torch.randn(1, obs_dim)
        self.hx = torch.zeros(1, 32)
        self.cx = torch.zeros(1, 32)
        self.done = True
        self.eps_len = 0
        self.values, self.log_probs, self.rewards, self.entropies = [], [], [], []

    def action_train(self):
        value, logit, (self.hx, self.cx) = self.model((self.state, (self.hx, self.cx)))  # expect: GG104
        prob = F.softmax(logit, dim=1)
        log_prob = F.log_softmax(logit, dim=1)
        entropy = -(log_prob * prob).sum(1)
        self.entropies.append(entropy)
        action = prob.multinomial(1).detach()
        self.log_probs.append(log_prob.gather(1, action))
        self.values.append(value)
        self.state = torch.randn(1, self.obs_dim)
        self.eps_len += 1
        self.done = self.eps_len >= 50
        self.rewards.append(float(action.item() == 0))
        return self

    def clear_actions(self):
        self.values, self.log_probs, self.rewards, self.entropies = [], [], [], []
        return self


def train(num_updates=3, num_steps=5, gamma=0.99, tau=1.0):
    torch.manual_seed(0)
    model = A3Clstm(obs_dim=8, num_actions=3)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    player = Agent(model, obs_dim=8)
    for _ in range(num_updates):
        if player.done:
            player.hx = torch.zeros(1, 32)
            player.cx = torch.zeros(1, 32)
            player.eps_len = 0
            player.done = False
        for step in range(num_steps):
            player.action_train()
            if player.done:
                break
        R = torch.zeros(1, 1)
        if not player.done:
            value, _, _ = player.model((player.state, (player.hx, player.cx)))
            R = value.detach()
        player.values.append(R)
        policy_loss = 0
        value_loss = 0
        gae = torch.zeros(1, 1)
        for i in reversed(range(len(player.rewards))):
            R = gamma * R + player.rewards[i]
            advantage = R - player.values[i]
            value_loss = value_loss + 0.5 * advantage.pow(2)
            delta_t = player.rewards[i] + gamma * player.values[i + 1].detach() - player.values[i].detach()
            gae = gae * gamma * tau + delta_t
            policy_loss = policy_loss - player.log_probs[i] * gae - 0.01 * player.entropies[i]
        player.model.zero_grad()
        (policy_loss + 0.5 * value_loss).backward()  # also: GG104
        optimizer.step()
        player.clear_actions()


if __name__ == "__main__":
    train()
