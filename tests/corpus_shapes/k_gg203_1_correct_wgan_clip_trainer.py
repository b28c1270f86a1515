# corpus: correct: WGAN Trainer initialises weights through .data in __init__ and clips critic weights through .data in update() after step(), outside any forward-to-backward window
# source: docs/rules/GG203.md (shape: 1)
import torch
import torch.nn as nn


class WGANTrainer:
    def __init__(self, critic, optimizer, clip=0.01):
        self.critic = critic
        self.optimizer = optimizer
        self.clip = clip
        for m in self.critic.modules():
            if isinstance(m, nn.Linear):
                m.weight.data.normal_(0.0, 0.02)
                m.bias.data.zero_()

    def compute_loss(self, real, fake):
        return self.critic(fake).mean() - self.critic(real).mean()

    def update(self):
        self.optimizer.step()
        for p in self.critic.parameters():
            p.data.clamp_(-self.clip, self.clip)

    def train_step(self, real, fake):
        loss = self.compute_loss(real, fake)
        self.optimizer.zero_grad()
        loss.backward()
        self.update()
        return loss.item()

    def fit(self, steps=3):
        return [self.train_step(torch.randn(8, 2), torch.randn(8, 2)) for _ in range(steps)]


def main():
    torch.manual_seed(0)
    critic = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
    trainer = WGANTrainer(critic, torch.optim.RMSprop(critic.parameters(), lr=5e-5))
    trainer.fit()


if __name__ == "__main__":
    main()
