# corpus: Rainbow-style agent resamples the online network's NoisyLinear noise inside learn() (under no_grad) after the current-state forward pass; the in-place copy_ into the epsilon buffers bumps tensors that the pending backward saved.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/Kaixhin/Rainbow/issues/2
import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class NoisyLinear(nn.Module):
    def __init__(self, in_features, out_features, std_init=0.5):
        super().__init__()
        self.in_features, self.out_features, self.std_init = in_features, out_features, std_init
        self.weight_mu = nn.Parameter(torch.empty(out_features, in_features))
        self.weight_sigma = nn.Parameter(torch.empty(out_features, in_features))
        self.register_buffer('weight_epsilon', torch.empty(out_features, in_features))
        self.bias_mu = nn.Parameter(torch.empty(out_features))
        self.bias_sigma = nn.Parameter(torch.empty(out_features))
        self.register_buffer('bias_epsilon', torch.empty(out_features))
        self.reset_parameters()
        self.reset_noise()

    def reset_parameters(self):
        mu_range = 1 / math.sqrt(self.in_features)
        self.weight_mu.data.uniform_(-mu_range, mu_range)
        self.weight_sigma.data.fill_(self.std_init / math.sqrt(self.in_features))
        self.bias_mu.data.uniform_(-mu_range, mu_range)
        self.bias_sigma.data.fill_(self.std_init / math.sqrt(self.out_features))

    def _scale_noise(self, size):
        x = torch.randn(size)
        return x.sign().mul_(x.abs().sqrt_())

    def reset_noise(self):
        epsilon_in = self._scale_noise(self.in_features)
        epsilon_out = self._scale_noise(self.out_features)
        self.weight_epsilon.copy_(torch.outer(epsilon_out, epsilon_in))  # also: GG107
        self.bias_epsilon.copy_(epsilon_out)  # also: GG107

    def forward(self, input):
        if self.training:
            return F.linear(input, self.weight_mu + self.weight_sigma * self.weight_epsilon,
                            self.bias_mu + self.bias_sigma * self.bias_epsilon)
        return F.linear(input, self.weight_mu, self.bias_mu)


class DQN(nn.Module):
    def __init__(self, state_dim, action_space, atoms, hidden_size=32):
        super().__init__()
        self.atoms, self.action_space = atoms, action_space
        self.fc_in = nn.Linear(state_dim, hidden_size)
        self.fc_h_v = NoisyLinear(hidden_size, hidden_size)
        self.fc_h_a = NoisyLinear(hidden_size, hidden_size)
        self.fc_z_v = NoisyLinear(hidden_size, atoms)
        self.fc_z_a = NoisyLinear(hidden_size, action_space * atoms)

    def forward(self, x, log=False):
        x = F.relu(self.fc_in(x))
        v = self.fc_z_v(F.relu(self.fc_h_v(x)))
        a = self.fc_z_a(F.relu(self.fc_h_a(x)))
        v, a = v.view(-1, 1, self.atoms), a.view(-1, self.action_space, self.atoms)
        q = v + a - a.mean(1, keepdim=True)
        return F.log_softmax(q, dim=2) if log else F.softmax(q, dim=2)

    def reset_noise(self):
        for name, module in self.named_children():
            if 'fc_h' in name or 'fc_z' in name:
                module.reset_noise()


class Agent:
    def __init__(self, state_dim, action_space, atoms=11, V_min=-10, V_max=10, batch_size=8,
                 discount=0.99, n=1, lr=1e-4):
        self.action_space, self.atoms = action_space, atoms
        self.Vmin, self.Vmax = V_min, V_max
        self.support = torch.linspace(V_min, V_max, atoms)
        self.delta_z = (V_max - V_min) / (atoms - 1)
        self.batch_size, self.n, self.discount = batch_size, n, discount
        self.online_net = DQN(state_dim, action_space, atoms)
        self.target_net = DQN(state_dim, action_space, atoms)
        self.target_net.load_state_dict(self.online_net.state_dict())
        for param in self.target_net.parameters():
            param.requires_grad = False
        self.optimiser = optim.Adam(self.online_net.parameters(), lr=lr, eps=1.5e-4)

    def act(self, state):
        with torch.no_grad():
            return (self.online_net(state.unsqueeze(0)) * self.support).sum(2).argmax(1).item()

    def learn(self, mem):
        states, actions, returns, next_states, nonterminals, weights = mem.sample(self.batch_size)
        log_ps = self.online_net(states, log=True)
        log_ps_a = log_ps[range(self.batch_size), actions]
        with torch.no_grad():
            self.online_net.reset_noise()  # expect: GG107
            pns = self.online_net(next_states)
            dns = self.support.expand_as(pns) * pns
            argmax_indices_ns = dns.sum(2).argmax(1)
            self.target_net.reset_noise()
            pns = self.target_net(next_states)
            pns_a = pns[range(self.batch_size), argmax_indices_ns]
            Tz = returns.unsqueeze(1) + nonterminals * (self.discount ** self.n) * self.support.unsqueeze(0)
            Tz = Tz.clamp(min=self.Vmin, max=self.Vmax)
            b = (Tz - self.Vmin) / self.delta_z
            l, u = b.floor().to(torch.int64), b.ceil().to(torch.int64)
            l[(u > 0) * (l == u)] -= 1
            u[(l < (self.atoms - 1)) * (l == u)] += 1
            m = states.new_zeros(self.batch_size, self.atoms)
            offset = torch.linspace(0, ((self.batch_size - 1) * self.atoms), self.batch_size).unsqueeze(1).expand(
                self.batch_size, self.atoms).to(actions)
            m.view(-1).index_add_(0, (l + offset).view(-1), (pns_a * (u.float() - b)).view(-1))
            m.view(-1).index_add_(0, (u + offset).view(-1), (pns_a * (b - l.float())).view(-1))
        loss = -torch.sum(m * log_ps_a, 1)
        self.online_net.zero_grad()
        (weights * loss).mean().backward()  # also: GG107
        self.optimiser.step()
        return loss.detach()

    def update_target_net(self):
        self.target_net.load_state_dict(self.online_net.state_dict())


class ReplayMemory:
    def __init__(self, state_dim):
        self.state_dim, self.transitions = state_dim, []

    def append(self, state, action, reward, next_state, terminal):
        self.transitions.append((state, action, reward, next_state, terminal))

    def sample(self, batch_size):
        batch = random.sample(self.transitions, batch_size)
        s, a, r, ns, t = zip(*batch)
        return (torch.stack(s), torch.tensor(a), torch.tensor(r, dtype=torch.float32), torch.stack(ns),
                1.0 - torch.tensor(t, dtype=torch.float32).unsqueeze(1), torch.ones(batch_size))


def main():
    random.seed(0)
    torch.manual_seed(0)
    state_dim, action_space = 4, 3
    dqn = Agent(state_dim, action_space)
    mem = ReplayMemory(state_dim)
    state = torch.randn(state_dim)
    for T in range(40):
        if T % 4 == 0:
            dqn.online_net.reset_noise()
        action = dqn.act(state)
        next_state = torch.randn(state_dim)
        mem.append(state, action, float(action == 0), next_state, T % 10 == 9)
        state = next_state
        if T >= 16:
            loss = dqn.learn(mem)
            if T % 8 == 0:
                dqn.update_target_net()
                print(T, "loss", loss.mean().item())


if __name__ == "__main__":
    main()
