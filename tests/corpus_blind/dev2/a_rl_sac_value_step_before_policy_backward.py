# corpus: SAC optimize_model (gdrl ch.12) builds policy_loss through the online Q networks, then steps the Q optimizers before calling policy_loss.backward()
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/mimoralea/gdrl/issues/13
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class FCQSA(nn.Module):
    def __init__(self, nS, nA, hidden=32):
        super().__init__()
        self.input_layer = nn.Linear(nS + nA, hidden)
        self.output_layer = nn.Linear(hidden, 1)

    def forward(self, state, action):
        return self.output_layer(F.relu(self.input_layer(torch.cat((state, action), dim=1))))


class FCGP(nn.Module):
    def __init__(self, nS, nA, hidden=32):
        super().__init__()
        self.input_layer = nn.Linear(nS, hidden)
        self.mean_layer, self.log_std_layer = nn.Linear(hidden, nA), nn.Linear(hidden, nA)
        self.target_entropy = -float(nA)
        self.logalpha = torch.zeros(1, requires_grad=True)
        self.alpha_optimizer = torch.optim.Adam([self.logalpha], lr=1e-3)

    def full_pass(self, state, epsilon=1e-6):
        x = F.relu(self.input_layer(state))
        mean, log_std = self.mean_layer(x), self.log_std_layer(x).clamp(-20, 2)
        pi_s = torch.distributions.Normal(mean, log_std.exp())
        pre_tanh_action = pi_s.rsample()
        tanh_action = torch.tanh(pre_tanh_action)
        log_prob = pi_s.log_prob(pre_tanh_action) - torch.log((1 - tanh_action.pow(2)).clamp(0, 1) + epsilon)
        return tanh_action, log_prob.sum(dim=1, keepdim=True), torch.tanh(mean)


class SAC:
    def __init__(self, nS=4, nA=2, gamma=0.99):
        self.policy_model = FCGP(nS, nA)
        self.online_value_model_a, self.online_value_model_b = FCQSA(nS, nA), FCQSA(nS, nA)
        self.target_value_model_a, self.target_value_model_b = FCQSA(nS, nA), FCQSA(nS, nA)
        self.policy_optimizer = torch.optim.Adam(self.policy_model.parameters(), lr=3e-4)
        self.value_optimizer_a = torch.optim.Adam(self.online_value_model_a.parameters(), lr=5e-4)
        self.value_optimizer_b = torch.optim.Adam(self.online_value_model_b.parameters(), lr=5e-4)
        self.gamma = gamma

    def optimize_model(self, experiences):
        states, actions, rewards, next_states, is_terminals = experiences
        # policy loss
        current_actions, logpi_s, _ = self.policy_model.full_pass(states)
        target_alpha = (logpi_s + self.policy_model.target_entropy).detach()
        alpha_loss = -(self.policy_model.logalpha * target_alpha).mean()
        self.policy_model.alpha_optimizer.zero_grad()
        alpha_loss.backward()
        self.policy_model.alpha_optimizer.step()
        alpha = self.policy_model.logalpha.exp()

        current_q_sa_a = self.online_value_model_a(states, current_actions)
        current_q_sa_b = self.online_value_model_b(states, current_actions)
        current_q_sa = torch.min(current_q_sa_a, current_q_sa_b)
        policy_loss = (alpha * logpi_s - current_q_sa).mean()

        # Q loss
        ap, logpi_sp, _ = self.policy_model.full_pass(next_states)
        q_spap = torch.min(self.target_value_model_a(next_states, ap), self.target_value_model_b(next_states, ap))
        target_q_sa = (rewards + self.gamma * (q_spap - alpha * logpi_sp) * (1 - is_terminals)).detach()
        qa_loss = (self.online_value_model_a(states, actions) - target_q_sa).pow(2).mul(0.5).mean()
        qb_loss = (self.online_value_model_b(states, actions) - target_q_sa).pow(2).mul(0.5).mean()

        self.value_optimizer_a.zero_grad()
        qa_loss.backward()
        self.value_optimizer_a.step()  # expect: GG111
        self.value_optimizer_b.zero_grad()
        qb_loss.backward()
        self.value_optimizer_b.step()  # also: GG111

        self.policy_optimizer.zero_grad()
        policy_loss.backward()  # also: GG111
        self.policy_optimizer.step()


def sample_experiences(batch_size=16, nS=4, nA=2):
    return (torch.randn(batch_size, nS), torch.rand(batch_size, nA) * 2 - 1, torch.randn(batch_size, 1),
            torch.randn(batch_size, nS), torch.from_numpy((np.random.rand(batch_size, 1) < 0.05).astype(np.float32)))


if __name__ == "__main__":
    torch.manual_seed(0)
    np.random.seed(0)
    agent = SAC()
    for step in range(3):
        agent.optimize_model(sample_experiences())
        print("step", step)
