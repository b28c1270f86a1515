# corpus: Encode-attend-navigate TSP trainer (astariul/encode-attend-navigate-pytorch shape) where, after separating the actor and critic updates as the issue discussion suggests, the policy loss and the critic loss are backpropagated one after the other through the one shared encoder forward; the second backward finds the encoder graph freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/astariul/encode-attend-navigate-pytorch/issues/2
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, hidden=32, heads=4):
        super().__init__()
        self.embed = nn.Linear(2, hidden)
        self.attn = nn.MultiheadAttention(hidden, heads, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(hidden, 64), nn.ReLU(), nn.Linear(64, hidden))

    def forward(self, coords):
        h = self.embed(coords)
        h = h + self.attn(h, h, h, need_weights=False)[0]
        return h + self.ff(h)


class Pointer(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.W_ref = nn.Linear(hidden, hidden, bias=False)
        self.W_q = nn.Linear(hidden, hidden, bias=False)
        self.v = nn.Linear(hidden, 1, bias=False)

    def forward(self, enc, query, mask):
        scores = self.v(torch.tanh(self.W_ref(enc) + self.W_q(query).unsqueeze(1))).squeeze(-1)
        return scores.masked_fill(mask, float("-inf"))


class Critic(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(hidden, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, enc):
        return self.net(enc.mean(dim=1)).squeeze(-1)


def tour_length(coords, tour):
    ordered = coords.gather(1, tour.unsqueeze(-1).expand(-1, -1, 2))
    return (ordered - ordered.roll(-1, dims=1)).norm(dim=-1).sum(dim=1)


def decode(pointer, enc):
    batch, n, _ = enc.shape
    mask = torch.zeros(batch, n, dtype=torch.bool)
    query = enc.mean(dim=1)
    log_probs, tour = [], []
    for _ in range(n):
        dist = torch.distributions.Categorical(logits=pointer(enc, query, mask))
        idx = dist.sample()
        log_probs.append(dist.log_prob(idx))
        tour.append(idx)
        mask = mask.clone()
        mask[torch.arange(batch), idx] = True
        query = enc[torch.arange(batch), idx]
    return torch.stack(log_probs, 1).sum(1), torch.stack(tour, 1)


class Trainer:
    def __init__(self):
        self.encoder, self.pointer, self.critic = Encoder(), Pointer(), Critic()
        self.actor_opt = torch.optim.Adam(list(self.encoder.parameters()) + list(self.pointer.parameters()), lr=1e-3)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def train_step(self, coords):
        enc = self.encoder(coords)
        log_prob, tour = decode(self.pointer, enc)
        reward = tour_length(coords, tour)
        predictions = self.critic(enc)  # expect: GG102
        policy_loss = ((reward - predictions).detach() * log_prob).mean()
        critic_loss = F.mse_loss(predictions, reward)

        self.actor_opt.zero_grad()
        policy_loss.backward()
        self.actor_opt.step()

        self.critic_opt.zero_grad()
        critic_loss.backward()  # also: GG102
        self.critic_opt.step()
        return {"reward": reward.mean().item(), "policy": policy_loss.item(), "critic": critic_loss.item()}


def main():
    torch.manual_seed(0)
    trainer = Trainer()
    for step in range(3):
        print(step, trainer.train_step(torch.rand(8, 6, 2)))


if __name__ == "__main__":
    main()
