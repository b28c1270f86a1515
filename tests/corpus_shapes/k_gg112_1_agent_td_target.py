# corpus: DQN-style Agent without a target network; compute_td_target() calls target.detach() as a statement, so the bootstrapped target keeps its graph and the update trains through it (silently wrong gradient)
# source: docs/rules/GG112.md (shape: 1)
import torch
import torch.nn as nn
import torch.nn.functional as F


class QAgent:
    def __init__(self, q_net, optimizer, gamma=0.9):
        self.q_net = q_net
        self.optimizer = optimizer
        self.gamma = gamma

    def compute_td_target(self, reward, next_obs, done):
        next_q = self.q_net(next_obs).max(dim=1).values
        target = reward + self.gamma * (1.0 - done) * next_q
        target.detach()  # expect: GG112
        return target

    def compute_loss(self, batch):
        obs, action, reward, next_obs, done = batch
        q_sa = self.q_net(obs).gather(1, action.unsqueeze(1)).squeeze(1)
        target = self.compute_td_target(reward, next_obs, done)
        return F.smooth_l1_loss(q_sa, target)

    def update(self, batch):
        loss = self.compute_loss(batch)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, batches):
        return [self.update(batch) for batch in batches]


def make_batch(n=8):
    return (
        torch.randn(n, 4),
        torch.randint(0, 2, (n,)),
        torch.randn(n),
        torch.randn(n, 4),
        torch.randint(0, 2, (n,)).float(),
    )


def main():
    torch.manual_seed(0)
    q_net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    agent = QAgent(q_net, torch.optim.SGD(q_net.parameters(), lr=0.01))
    agent.fit([make_batch() for _ in range(3)])
    return agent


if __name__ == "__main__":
    main()
