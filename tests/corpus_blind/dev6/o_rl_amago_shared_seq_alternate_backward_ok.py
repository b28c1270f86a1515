# corpus: off-policy actor-critic with a shared sequence model (AMAGO-style): both losses come from one forward, the actor loss is backpropagated first with retain_graph=True, the critics' gradients from it are cleared, then the critic loss is backpropagated and a single step follows (correct)
# source: https://github.com/UT-Austin-RPL/amago/pull/27
import argparse
import copy
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Batch:
    obs: torch.Tensor
    actions: torch.Tensor
    rewards: torch.Tensor
    dones: torch.Tensor


class TrajEncoder(nn.Module):
    def __init__(self, obs_dim, d_model):
        super().__init__()
        self.inp = nn.Linear(obs_dim, d_model)
        self.rnn = nn.GRU(d_model, d_model, batch_first=True)

    def forward(self, obs_seq):
        h, _ = self.rnn(F.leaky_relu(self.inp(obs_seq)))
        return h


class Actor(nn.Module):
    def __init__(self, d_model, action_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_model, 64), nn.LeakyReLU(), nn.Linear(64, action_dim))

    def forward(self, state):
        return torch.tanh(self.net(state))


class NCritics(nn.Module):
    def __init__(self, d_model, action_dim, num_critics=2):
        super().__init__()
        self.critics = nn.ModuleList([
            nn.Sequential(nn.Linear(d_model + action_dim, 64), nn.LeakyReLU(), nn.Linear(64, 1))
            for _ in range(num_critics)])

    def forward(self, state, action):
        sa = torch.cat((state, action), dim=-1)
        return torch.stack([c(sa) for c in self.critics], dim=0)  # (num_critics, B, L, 1)


class Agent(nn.Module):
    def __init__(self, obs_dim, action_dim, d_model=32, gamma=0.99, tau=0.005):
        super().__init__()
        self.gamma = gamma
        self.tau = tau
        self.traj_encoder = TrajEncoder(obs_dim, d_model)
        self.actor = Actor(d_model, action_dim)
        self.critics = NCritics(d_model, action_dim)
        self.target_traj_encoder = copy.deepcopy(self.traj_encoder)
        self.target_actor = copy.deepcopy(self.actor)
        self.target_critics = copy.deepcopy(self.critics)
        for m in (self.target_traj_encoder, self.target_actor, self.target_critics):
            m.requires_grad_(False)

    def forward(self, batch: Batch):
        s_rep = self.traj_encoder(batch.obs)  # shared sequence model
        a_agent = self.actor(s_rep[:, :-1])

        with torch.no_grad():
            s_rep_t = self.target_traj_encoder(batch.obs)
            a_next = self.target_actor(s_rep_t[:, 1:])
            q_next = self.target_critics(s_rep_t[:, 1:], a_next).min(0).values
            td_target = batch.rewards + self.gamma * (1.0 - batch.dones) * q_next

        q_s_a_g = self.critics(s_rep[:, :-1], batch.actions)
        critic_loss = (q_s_a_g - td_target.unsqueeze(0)).pow(2).mean()

        q_s_a_agent = self.critics(s_rep[:, :-1], a_agent)
        actor_loss = -q_s_a_agent.min(0).values.mean()
        return critic_loss, actor_loss

    @torch.no_grad()
    def soft_sync_targets(self):
        for target, online in ((self.target_traj_encoder, self.traj_encoder),
                               (self.target_actor, self.actor), (self.target_critics, self.critics)):
            for tp, p in zip(target.parameters(), online.parameters()):
                tp.mul_(1 - self.tau).add_(self.tau * p)


class Experiment:
    def __init__(self, args):
        self.args = args
        self.policy = Agent(args.obs_dim, args.action_dim)
        self.optimizer = torch.optim.AdamW(self.policy.parameters(), lr=args.lr, weight_decay=1e-4)

    def sample_batch(self, g):
        B, L = self.args.batch_size, self.args.seq_len
        return Batch(obs=torch.randn(B, L + 1, self.args.obs_dim, generator=g),
                     actions=torch.rand(B, L, self.args.action_dim, generator=g) * 2 - 1,
                     rewards=torch.randn(B, L, 1, generator=g),
                     dones=(torch.rand(B, L, 1, generator=g) < 0.05).float())

    def train_step(self, batch):
        critic_loss, actor_loss = self.policy(batch)
        self.optimizer.zero_grad()
        # actor objective first; keep the shared graph for the critic objective
        actor_loss.backward(retain_graph=True)
        # the critics must not be trained to maximise their own output
        for p in self.policy.critics.parameters():
            p.grad = None
        critic_loss.backward()
        nn.utils.clip_grad_norm_(self.policy.parameters(), self.args.grad_clip)
        self.optimizer.step()
        self.policy.soft_sync_targets()
        return {"critic_loss": critic_loss.item(), "actor_loss": actor_loss.item()}

    def learn(self):
        g = torch.Generator().manual_seed(1)
        before = self.policy.traj_encoder.inp.weight.detach().clone()
        for step in range(self.args.steps):
            stats = self.train_step(self.sample_batch(g))
            print(step, stats)
        moved = (self.policy.traj_encoder.inp.weight - before).abs().sum().item()
        print("shared encoder weight change:", moved)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--obs_dim", type=int, default=5)
    parser.add_argument("--action_dim", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--seq_len", type=int, default=10)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--grad_clip", type=float, default=2.0)
    parser.add_argument("--steps", type=int, default=4)
    args = parser.parse_args()
    torch.manual_seed(0)
    Experiment(args).learn()


if __name__ == "__main__":
    main()
