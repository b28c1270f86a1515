# corpus: data-poisoning attack on a recommender: fake user rows are a leaf tensor optimised by gradient ascent through a surrogate WMF model, and the projection step writes the target item column into that leaf in place outside no_grad
# raises: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation
# source: https://github.com/graytowne/revisit_adv_rec/issues/3
import argparse

import torch
import torch.nn as nn


class WeightedMF(nn.Module):
    def __init__(self, n_users, n_items, hidden_dim):
        super().__init__()
        self.Q = nn.Parameter(torch.randn(n_items, hidden_dim) * 0.1)
        self.user_proj = nn.Linear(n_items, hidden_dim, bias=False)

    def forward(self, user_rows):
        P = self.user_proj(user_rows)
        return P @ self.Q.t()


class SurrogateTrainer:
    def __init__(self, args, n_items):
        self.args = args
        self.n_items = n_items

    def fit_and_score(self, data_tensor, target_item):
        model = WeightedMF(data_tensor.shape[0], self.n_items, self.args.hidden_dim)
        optimizer = torch.optim.SGD(model.parameters(), lr=self.args.sur_lr)
        for _ in range(self.args.sur_epochs):
            scores = model(data_tensor)
            weights = 1.0 + self.args.weight_alpha * data_tensor
            loss = (weights * (scores - data_tensor) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scores = model(data_tensor)
        return scores[:, target_item].mean()


class WRMFSGDAttack:
    def __init__(self, args, train_data, target_item):
        self.args = args
        self.train_data = train_data
        self.target_item = target_item
        self.surrogate = SurrogateTrainer(args, train_data.shape[1])

    def init_fake_data(self):
        fake = (torch.rand(self.args.n_fakes, self.train_data.shape[1]) < 0.1).float()
        return fake.requires_grad_(True)

    def project(self, fake_tensor):
        fake_tensor[:, self.target_item] = 1.0  # expect: GG108
        return fake_tensor

    def generate(self):
        fake_tensor = self.init_fake_data()
        for step in range(self.args.adv_epochs):
            data_tensor = torch.cat([self.train_data, fake_tensor], dim=0)
            adv_loss = -self.surrogate.fit_and_score(data_tensor, self.target_item)
            adv_grads = torch.autograd.grad(adv_loss, fake_tensor)[0]
            with torch.no_grad():
                fake_tensor -= self.args.adv_lr * adv_grads
                fake_tensor.clamp_(0.0, 1.0)
            fake_tensor = self.project(fake_tensor)
            print(f"step {step} adv_loss {adv_loss.item():.4f}")
        return fake_tensor.detach()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hidden_dim", type=int, default=8)
    parser.add_argument("--sur_lr", type=float, default=0.1)
    parser.add_argument("--sur_epochs", type=int, default=3)
    parser.add_argument("--weight_alpha", type=float, default=20.0)
    parser.add_argument("--n_fakes", type=int, default=4)
    parser.add_argument("--adv_lr", type=float, default=1.0)
    parser.add_argument("--adv_epochs", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    train_data = (torch.rand(20, 30) < 0.15).float()
    attack = WRMFSGDAttack(args, train_data, target_item=7)
    print(attack.generate().sum().item())


if __name__ == "__main__":
    main()
