# corpus: QMIX learner keeps the agents' GRU hidden state in self.eval_hidden and never re-initialises it at the start of learn(), so the second training step backpropagates into the first step's freed graph.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/starry-sky6688/MARL-Algorithms/issues/57
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class RNN(nn.Module):
    def __init__(self, input_shape, args):
        super().__init__()
        self.args = args
        self.fc1 = nn.Linear(input_shape, args.rnn_hidden_dim)
        self.rnn = nn.GRUCell(args.rnn_hidden_dim, args.rnn_hidden_dim)
        self.fc2 = nn.Linear(args.rnn_hidden_dim, args.n_actions)

    def forward(self, obs, hidden_state):
        x = F.relu(self.fc1(obs))
        h_in = hidden_state.reshape(-1, self.args.rnn_hidden_dim)
        h = self.rnn(x, h_in)
        q = self.fc2(h)
        return q, h


class QMixNet(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.args = args
        self.hyper_w1 = nn.Linear(args.state_shape, args.n_agents * args.qmix_hidden_dim)
        self.hyper_w2 = nn.Linear(args.state_shape, args.qmix_hidden_dim)
        self.hyper_b1 = nn.Linear(args.state_shape, args.qmix_hidden_dim)
        self.hyper_b2 = nn.Sequential(nn.Linear(args.state_shape, args.qmix_hidden_dim), nn.ReLU(),
                                      nn.Linear(args.qmix_hidden_dim, 1))

    def forward(self, q_values, states):
        episode_num = q_values.size(0)
        q_values = q_values.view(-1, 1, self.args.n_agents)
        states = states.reshape(-1, self.args.state_shape)
        w1 = torch.abs(self.hyper_w1(states)).view(-1, self.args.n_agents, self.args.qmix_hidden_dim)
        b1 = self.hyper_b1(states).view(-1, 1, self.args.qmix_hidden_dim)
        hidden = F.elu(torch.bmm(q_values, w1) + b1)
        w2 = torch.abs(self.hyper_w2(states)).view(-1, self.args.qmix_hidden_dim, 1)
        b2 = self.hyper_b2(states).view(-1, 1, 1)
        q_total = torch.bmm(hidden, w2) + b2
        return q_total.view(episode_num, -1, 1)


class QMIX:
    def __init__(self, args):
        self.args = args
        input_shape = args.obs_shape + args.n_agents
        self.eval_rnn = RNN(input_shape, args)
        self.target_rnn = RNN(input_shape, args)
        self.eval_qmix_net = QMixNet(args)
        self.target_qmix_net = QMixNet(args)
        self.target_rnn.load_state_dict(self.eval_rnn.state_dict())
        self.target_qmix_net.load_state_dict(self.eval_qmix_net.state_dict())
        self.eval_parameters = list(self.eval_qmix_net.parameters()) + list(self.eval_rnn.parameters())
        self.optimizer = torch.optim.RMSprop(self.eval_parameters, lr=args.lr)
        self.eval_hidden = None
        self.target_hidden = None
        self.init_hidden(args.batch_size)

    def init_hidden(self, episode_num):
        self.eval_hidden = torch.zeros((episode_num, self.args.n_agents, self.args.rnn_hidden_dim))
        self.target_hidden = torch.zeros((episode_num, self.args.n_agents, self.args.rnn_hidden_dim))

    def _get_inputs(self, batch, transition_idx):
        obs, obs_next = batch['o'][:, transition_idx], batch['o_next'][:, transition_idx]
        episode_num = obs.shape[0]
        agent_id = torch.eye(self.args.n_agents).unsqueeze(0).expand(episode_num, -1, -1)
        inputs = torch.cat([obs, agent_id], dim=-1).reshape(episode_num * self.args.n_agents, -1)
        inputs_next = torch.cat([obs_next, agent_id], dim=-1).reshape(episode_num * self.args.n_agents, -1)
        return inputs, inputs_next

    def get_q_values(self, batch, max_episode_len):
        episode_num = batch['o'].shape[0]
        q_evals, q_targets = [], []
        for transition_idx in range(max_episode_len):
            inputs, inputs_next = self._get_inputs(batch, transition_idx)
            q_eval, self.eval_hidden = self.eval_rnn(inputs, self.eval_hidden)  # expect: GG104
            with torch.no_grad():
                q_target, self.target_hidden = self.target_rnn(inputs_next, self.target_hidden)
            q_evals.append(q_eval.view(episode_num, self.args.n_agents, -1))
            q_targets.append(q_target.view(episode_num, self.args.n_agents, -1))
        return torch.stack(q_evals, dim=1), torch.stack(q_targets, dim=1)

    def learn(self, batch, max_episode_len, train_step):
        # the repository calls self.init_hidden(episode_num) here; this learner does not
        s, s_next, u = batch['s'], batch['s_next'], batch['u']
        r, terminated = batch['r'], batch['terminated']
        mask = 1 - batch['padded']

        q_evals, q_targets = self.get_q_values(batch, max_episode_len)
        q_evals = torch.gather(q_evals, dim=3, index=u).squeeze(3)
        q_targets = q_targets.max(dim=3)[0]

        q_total_eval = self.eval_qmix_net(q_evals, s)
        with torch.no_grad():
            q_total_target = self.target_qmix_net(q_targets, s_next)
        targets = r + self.args.gamma * q_total_target * (1 - terminated)

        td_error = q_total_eval - targets
        masked_td_error = mask * td_error
        loss = (masked_td_error ** 2).sum() / mask.sum()
        self.optimizer.zero_grad()
        loss.backward()  # also: GG104
        torch.nn.utils.clip_grad_norm_(self.eval_parameters, self.args.grad_norm_clip)
        self.optimizer.step()
        if train_step > 0 and train_step % self.args.target_update_cycle == 0:
            self.target_rnn.load_state_dict(self.eval_rnn.state_dict())
            self.target_qmix_net.load_state_dict(self.eval_qmix_net.state_dict())
        return loss.item()


class ReplayBuffer:
    def __init__(self, args, rng):
        self.args = args
        self.rng = rng

    def sample(self, batch_size):
        a, T = self.args, self.args.episode_limit
        return {
            'o': torch.randn(batch_size, T, a.n_agents, a.obs_shape),
            'o_next': torch.randn(batch_size, T, a.n_agents, a.obs_shape),
            's': torch.randn(batch_size, T, a.state_shape),
            's_next': torch.randn(batch_size, T, a.state_shape),
            'u': torch.randint(0, a.n_actions, (batch_size, T, a.n_agents, 1)),
            'r': torch.randn(batch_size, T, 1),
            'terminated': torch.zeros(batch_size, T, 1),
            'padded': torch.zeros(batch_size, T, 1),
        }


class Args:
    n_agents = 3
    n_actions = 4
    obs_shape = 6
    state_shape = 8
    rnn_hidden_dim = 16
    qmix_hidden_dim = 8
    episode_limit = 5
    batch_size = 4
    lr = 5e-4
    gamma = 0.99
    grad_norm_clip = 10
    target_update_cycle = 200


def main():
    torch.manual_seed(0)
    args = Args()
    policy = QMIX(args)
    buffer = ReplayBuffer(args, np.random.default_rng(0))
    for train_step in range(3):
        batch = buffer.sample(args.batch_size)
        loss = policy.learn(batch, args.episode_limit, train_step)
        print(f"train step {train_step}: loss {loss:.4f}")


if __name__ == "__main__":
    main()
