# corpus: recurrent SAC (sac_v2_lstm style) computes the target Q through target LSTM critics without no_grad but passes target_q_value.detach() to the critic criteria; policy actions sampled before the critic steps only feed critics run after them (correct)
# source: https://github.com/quantumiracle/Popular-RL-Algorithms/issues/16
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class QNetworkLSTM(nn.Module):
    def __init__(self, state_dim, action_dim, hidden_dim=32):
        super().__init__()
        self.linear1 = nn.Linear(state_dim + action_dim, hidden_dim)
        self.linear2 = nn.Linear(state_dim + action_dim, hidden_dim)
        self.lstm1 = nn.LSTM(hidden_dim, hidden_dim)
        self.linear3 = nn.Linear(2 * hidden_dim, hidden_dim)
        self.linear4 = nn.Linear(hidden_dim, 1)

    def forward(self, state, action, last_action, hidden_in):
        state, action, last_action = (t.permute(1, 0, 2) for t in (state, action, last_action))
        fc_branch = F.relu(self.linear1(torch.cat([state, action], -1)))
        lstm_branch = F.relu(self.linear2(torch.cat([state, last_action], -1)))
        lstm_branch, lstm_hidden = self.lstm1(lstm_branch, hidden_in)
        x = F.relu(self.linear3(torch.cat([fc_branch, lstm_branch], -1)))
        return self.linear4(x).permute(1, 0, 2), lstm_hidden


class SAC_PolicyNetworkLSTM(nn.Module):
    def __init__(self, state_dim, action_dim, hidden_dim=32):
        super().__init__()
        self.linear1 = nn.Linear(state_dim, hidden_dim)
        self.linear2 = nn.Linear(state_dim + action_dim, hidden_dim)
        self.lstm1 = nn.LSTM(hidden_dim, hidden_dim)
        self.linear3 = nn.Linear(2 * hidden_dim, hidden_dim)
        self.mean_linear = nn.Linear(hidden_dim, action_dim)
        self.log_std_linear = nn.Linear(hidden_dim, action_dim)

    def forward(self, state, last_action, hidden_in):
        state, last_action = state.permute(1, 0, 2), last_action.permute(1, 0, 2)
        fc_branch = F.relu(self.linear1(state))
        lstm_branch = F.relu(self.linear2(torch.cat([state, last_action], -1)))
        lstm_branch, lstm_hidden = self.lstm1(lstm_branch, hidden_in)
        x = F.relu(self.linear3(torch.cat([fc_branch, lstm_branch], -1))).permute(1, 0, 2)
        return self.mean_linear(x), self.log_std_linear(x).clamp(-20, 2), lstm_hidden

    def evaluate(self, state, last_action, hidden_in, epsilon=1e-6):
        mean, log_std, hidden_out = self.forward(state, last_action, hidden_in)
        std = log_std.exp()
        z = torch.randn_like(mean)
        action_0 = torch.tanh(mean + std * z)
        log_prob = torch.distributions.Normal(mean, std).log_prob(mean + std * z) - torch.log(1.0 - action_0.pow(2) + epsilon)
        return action_0, log_prob.sum(dim=-1, keepdim=True), hidden_out


class SAC_Trainer:
    def __init__(self, state_dim, action_dim, lr=3e-4):
        self.soft_q_net1, self.soft_q_net2 = QNetworkLSTM(state_dim, action_dim), QNetworkLSTM(state_dim, action_dim)
        self.target_soft_q_net1, self.target_soft_q_net2 = QNetworkLSTM(state_dim, action_dim), QNetworkLSTM(state_dim, action_dim)
        self.target_soft_q_net1.load_state_dict(self.soft_q_net1.state_dict())
        self.target_soft_q_net2.load_state_dict(self.soft_q_net2.state_dict())
        self.policy_net = SAC_PolicyNetworkLSTM(state_dim, action_dim)
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.soft_q_criterion1, self.soft_q_criterion2 = nn.MSELoss(), nn.MSELoss()
        self.soft_q_optimizer1 = torch.optim.Adam(self.soft_q_net1.parameters(), lr=lr)
        self.soft_q_optimizer2 = torch.optim.Adam(self.soft_q_net2.parameters(), lr=lr)
        self.policy_optimizer = torch.optim.Adam(self.policy_net.parameters(), lr=lr)
        self.alpha_optimizer = torch.optim.Adam([self.log_alpha], lr=lr)

    def update(self, batch, gamma=0.99, target_entropy=-2.0, soft_tau=1e-2):
        hidden_in, hidden_out, state, action, last_action, reward, next_state, done = batch
        predicted_q_value1, _ = self.soft_q_net1(state, action, last_action, hidden_in)
        predicted_q_value2, _ = self.soft_q_net2(state, action, last_action, hidden_in)
        new_action, log_prob, _ = self.policy_net.evaluate(state, last_action, hidden_in)
        new_next_action, next_log_prob, _ = self.policy_net.evaluate(next_state, action, hidden_out)

        alpha_loss = -(self.log_alpha * (log_prob + target_entropy).detach()).mean()
        self.alpha_optimizer.zero_grad()
        alpha_loss.backward()
        self.alpha_optimizer.step()
        alpha = self.log_alpha.exp()

        predict_target_q1, _ = self.target_soft_q_net1(next_state, new_next_action, action, hidden_out)
        predict_target_q2, _ = self.target_soft_q_net2(next_state, new_next_action, action, hidden_out)
        target_q_min = torch.min(predict_target_q1, predict_target_q2) - alpha * next_log_prob
        target_q_value = reward + (1 - done) * gamma * target_q_min
        q_value_loss1 = self.soft_q_criterion1(predicted_q_value1, target_q_value.detach())
        q_value_loss2 = self.soft_q_criterion2(predicted_q_value2, target_q_value.detach())
        self.soft_q_optimizer1.zero_grad()
        q_value_loss1.backward()
        self.soft_q_optimizer1.step()
        self.soft_q_optimizer2.zero_grad()
        q_value_loss2.backward()
        self.soft_q_optimizer2.step()

        predict_q1, _ = self.soft_q_net1(state, new_action, last_action, hidden_in)
        predict_q2, _ = self.soft_q_net2(state, new_action, last_action, hidden_in)
        predicted_new_q_value = torch.min(predict_q1, predict_q2)
        policy_loss = (alpha.detach() * log_prob - predicted_new_q_value).mean()
        self.policy_optimizer.zero_grad()
        policy_loss.backward()
        self.policy_optimizer.step()

        with torch.no_grad():
            for tgt, src in ((self.target_soft_q_net1, self.soft_q_net1), (self.target_soft_q_net2, self.soft_q_net2)):
                for target_param, param in zip(tgt.parameters(), src.parameters()):
                    target_param.data.copy_(target_param.data * (1.0 - soft_tau) + param.data * soft_tau)
        return q_value_loss1.item(), policy_loss.item()


def sample_episode_batch(batch_size=4, seq_len=6, state_dim=5, action_dim=2, hidden_dim=32):
    hidden = (torch.zeros(1, batch_size, hidden_dim), torch.zeros(1, batch_size, hidden_dim))
    return (hidden, hidden, torch.randn(batch_size, seq_len, state_dim), torch.rand(batch_size, seq_len, action_dim) * 2 - 1,
            torch.rand(batch_size, seq_len, action_dim) * 2 - 1, torch.randn(batch_size, seq_len, 1),
            torch.randn(batch_size, seq_len, state_dim), torch.zeros(batch_size, seq_len, 1))


def main():
    random.seed(0)
    torch.manual_seed(0)
    trainer = SAC_Trainer(5, 2)
    for it in range(3):
        print(it, trainer.update(sample_episode_batch()))


if __name__ == "__main__":
    main()
