# corpus: PyMARL-style Q-learner: GRU agents unroll their hidden state over the whole episode batch without detaching it, the target MAC's values are detached in the TD target, and a single backward runs after the time loop (full BPTT, correct)
# source: https://github.com/oxwhirl/pymarl/issues/161
import copy
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F


class RNNAgent(nn.Module):
    def __init__(self, input_shape, args):
        super().__init__()
        self.args = args
        self.fc1 = nn.Linear(input_shape, args.rnn_hidden_dim)
        self.rnn = nn.GRUCell(args.rnn_hidden_dim, args.rnn_hidden_dim)
        self.fc2 = nn.Linear(args.rnn_hidden_dim, args.n_actions)

    def init_hidden(self):
        return self.fc1.weight.new(1, self.args.rnn_hidden_dim).zero_()

    def forward(self, inputs, hidden_state):
        x = F.relu(self.fc1(inputs))
        h_in = hidden_state.reshape(-1, self.args.rnn_hidden_dim)
        h = self.rnn(x, h_in)
        return self.fc2(h), h


class BasicMAC:
    def __init__(self, input_shape, args):
        self.n_agents = args.n_agents
        self.agent = RNNAgent(input_shape, args)
        self.hidden_states = None

    def init_hidden(self, batch_size):
        self.hidden_states = self.agent.init_hidden().unsqueeze(0).expand(batch_size, self.n_agents, -1)

    def forward(self, batch, t):
        agent_inputs = batch["obs"][:, t].reshape(-1, batch["obs"].shape[-1])
        agent_outs, self.hidden_states = self.agent(agent_inputs, self.hidden_states)
        return agent_outs.view(batch["obs"].shape[0], self.n_agents, -1)

    def parameters(self):
        return self.agent.parameters()

    def load_state(self, other_mac):
        self.agent.load_state_dict(other_mac.agent.state_dict())


class QLearner:
    def __init__(self, mac, args):
        self.args = args
        self.mac = mac
        self.params = list(mac.parameters())
        self.optimiser = torch.optim.RMSprop(params=self.params, lr=args.lr, alpha=0.99, eps=1e-5)
        self.target_mac = copy.deepcopy(mac)
        self.last_target_update_episode = 0

    def train(self, batch, episode_num):
        rewards = batch["reward"][:, :-1]
        actions = batch["actions"][:, :-1]
        terminated = batch["terminated"][:, :-1].float()
        mask = batch["filled"][:, :-1].float()
        mask[:, 1:] = mask[:, 1:] * (1 - terminated[:, :-1])

        mac_out = []
        self.mac.init_hidden(batch["obs"].shape[0])
        for t in range(batch["obs"].shape[1]):
            agent_outs = self.mac.forward(batch, t=t)
            mac_out.append(agent_outs)
        mac_out = torch.stack(mac_out, dim=1)
        chosen_action_qvals = torch.gather(mac_out[:, :-1], dim=3, index=actions).squeeze(3)

        target_mac_out = []
        self.target_mac.init_hidden(batch["obs"].shape[0])
        for t in range(batch["obs"].shape[1]):
            target_agent_outs = self.target_mac.forward(batch, t=t)
            target_mac_out.append(target_agent_outs)
        target_mac_out = torch.stack(target_mac_out[1:], dim=1)
        target_max_qvals = target_mac_out.max(dim=3)[0]

        # VDN mixing
        chosen_action_qvals = chosen_action_qvals.sum(dim=2, keepdim=True)
        target_max_qvals = target_max_qvals.sum(dim=2, keepdim=True)

        targets = rewards + self.args.gamma * (1 - terminated) * target_max_qvals
        td_error = chosen_action_qvals - targets.detach()
        masked_td_error = td_error * mask
        loss = (masked_td_error ** 2).sum() / mask.sum()

        self.optimiser.zero_grad()
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(self.params, self.args.grad_norm_clip)
        self.optimiser.step()

        if (episode_num - self.last_target_update_episode) / self.args.target_update_interval >= 1.0:
            self.target_mac.load_state(self.mac)
            self.last_target_update_episode = episode_num
        return loss.item(), grad_norm.item()


def sample_batch(batch_size, max_t, n_agents, obs_dim, n_actions):
    return {
        "obs": torch.randn(batch_size, max_t, n_agents, obs_dim),
        "actions": torch.randint(0, n_actions, (batch_size, max_t, n_agents, 1)),
        "reward": torch.randn(batch_size, max_t, 1),
        "terminated": torch.zeros(batch_size, max_t, 1, dtype=torch.bool),
        "filled": torch.ones(batch_size, max_t, 1),
    }


def main():
    torch.manual_seed(0)
    args = SimpleNamespace(n_agents=3, n_actions=5, rnn_hidden_dim=16, lr=5e-4, gamma=0.99,
                           grad_norm_clip=10, target_update_interval=2)
    obs_dim = 10
    mac = BasicMAC(obs_dim, args)
    learner = QLearner(mac, args)
    for episode in range(4):
        batch = sample_batch(batch_size=4, max_t=6, n_agents=args.n_agents, obs_dim=obs_dim, n_actions=args.n_actions)
        loss, grad_norm = learner.train(batch, episode)
        print(f"episode {episode}: loss {loss:.4f} grad_norm {grad_norm:.4f}")


if __name__ == "__main__":
    main()
