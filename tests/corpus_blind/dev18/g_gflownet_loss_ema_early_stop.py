# corpus: GFlowNet agent training with flow-matching losses keeps exponential moving averages of the terminal and flow losses for early stopping, but builds them from the loss tensors, so every iteration's graph is chained into the EMA and kept alive.
# source: https://github.com/alexhernandezgarcia/gflownet/pull/133
import time
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class GridEnv:
    length: int = 4
    n_dim: int = 2

    def state2obs(self, states):
        obs = torch.zeros(states.shape[0], self.n_dim * self.length)
        for d in range(self.n_dim):
            obs[torch.arange(states.shape[0]), d * self.length + states[:, d]] = 1.0
        return obs

    def reward(self, states):
        x = states.float() / (self.length - 1) - 0.5
        return 0.01 + (x.abs() > 0.25).all(dim=1).float() * 2.0


class GFlowNetAgent:
    def __init__(self, env, n_train_steps=6, batch_size=16, ema_alpha=0.5, early_stopping=1e-4):
        self.env = env
        self.n_actions = env.n_dim + 1
        self.forward_policy = nn.Sequential(nn.Linear(env.n_dim * env.length, 32), nn.LeakyReLU(),
                                            nn.Linear(32, self.n_actions))
        self.opt = torch.optim.Adam(self.forward_policy.parameters(), lr=1e-3)
        self.n_train_steps = n_train_steps
        self.batch_size = batch_size
        self.ema_alpha = ema_alpha
        self.early_stopping = early_stopping

    def sample_batch(self):
        states = torch.zeros(self.batch_size, self.env.n_dim, dtype=torch.long)
        parents, children, done = [], [], torch.zeros(self.batch_size, dtype=torch.bool)
        for _ in range(self.env.length * self.env.n_dim):
            with torch.no_grad():
                logits = self.forward_policy(self.env.state2obs(states))
            actions = torch.distributions.Categorical(logits=logits).sample()
            stop = (actions == self.env.n_dim) | done
            new_states = states.clone()
            for d in range(self.env.n_dim):
                move = (actions == d) & ~stop & (states[:, d] < self.env.length - 1)
                new_states[move, d] += 1
            parents.append(states[~done])
            children.append(new_states[~done])
            done = done | stop
            states = new_states
            if done.all():
                break
        return torch.cat(parents), torch.cat(children), states

    def flowmatch_loss(self, parents, children, terminal):
        parent_flow = torch.logsumexp(self.forward_policy(self.env.state2obs(parents)), dim=1)
        child_flow = torch.logsumexp(self.forward_policy(self.env.state2obs(children)), dim=1)
        log_reward = torch.log(self.env.reward(terminal))
        terminal_flow = torch.logsumexp(self.forward_policy(self.env.state2obs(terminal)), dim=1)
        loss_term = ((terminal_flow - log_reward) ** 2).mean()
        loss_flow = ((parent_flow - child_flow) ** 2).mean()
        return loss_term + loss_flow, loss_term, loss_flow

    def train(self):
        loss_term_ema = None
        loss_flow_ema = None
        times = {}
        for it in range(self.n_train_steps):
            t0_iter = time.time()
            parents, children, terminal = self.sample_batch()
            losses = self.flowmatch_loss(parents, children, terminal)
            self.opt.zero_grad()
            losses[0].backward()
            self.opt.step()
            if loss_term_ema and loss_flow_ema:
                loss_term_ema = self.ema_alpha * losses[1] + (1.0 - self.ema_alpha) * loss_term_ema  # expect: GG301
                loss_flow_ema = self.ema_alpha * losses[2] + (1.0 - self.ema_alpha) * loss_flow_ema  # also: GG301
                if loss_term_ema < self.early_stopping and loss_flow_ema < self.early_stopping:
                    break
            else:
                loss_term_ema = losses[1]
                loss_flow_ema = losses[2]
            times.update({"iter": time.time() - t0_iter})
            print(it, round(losses[0].item(), 4), round(loss_term_ema.item(), 4), round(loss_flow_ema.item(), 4))
        return loss_term_ema, loss_flow_ema


def main():
    torch.manual_seed(0)
    agent = GFlowNetAgent(GridEnv())
    agent.train()


if __name__ == "__main__":
    main()
