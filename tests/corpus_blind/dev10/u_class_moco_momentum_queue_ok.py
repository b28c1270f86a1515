# corpus: MoCo builder with a momentum key encoder updated in place under @torch.no_grad, keys computed without grad and enqueued into a buffer queue; only the query encoder is trained and nothing stale is carried across iterations (correct)
# source: https://github.com/facebookresearch/moco/pull/141
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_encoder(in_dim=24, dim=16):
    return nn.Sequential(nn.Linear(in_dim, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, dim))


class MoCo(nn.Module):
    def __init__(self, dim=16, K=64, m=0.99, T=0.2):
        super().__init__()
        self.K, self.m, self.T = K, m, T
        self.encoder_q = make_encoder(dim=dim)
        self.encoder_k = make_encoder(dim=dim)
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data.copy_(param_q.data)
            param_k.requires_grad = False
        self.register_buffer("queue", F.normalize(torch.randn(dim, K), dim=0))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def _momentum_update_key_encoder(self):
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.mul_(self.m).add_(param_q.detach(), alpha=1.0 - self.m)

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys):
        batch_size = keys.shape[0]
        ptr = int(self.queue_ptr)
        assert self.K % batch_size == 0
        self.queue[:, ptr:ptr + batch_size] = keys.T
        self.queue_ptr[0] = (ptr + batch_size) % self.K

    def forward(self, im_q, im_k):
        q = F.normalize(self.encoder_q(im_q), dim=1)
        with torch.no_grad():
            self._momentum_update_key_encoder()
            k = F.normalize(self.encoder_k(im_k), dim=1)
        l_pos = torch.einsum("nc,nc->n", [q, k]).unsqueeze(-1)
        l_neg = torch.einsum("nc,ck->nk", [q, self.queue.clone().detach()])
        logits = torch.cat([l_pos, l_neg], dim=1) / self.T
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        self._dequeue_and_enqueue(k)
        return logits, labels


class PretrainRunner:
    def __init__(self, model, lr=0.03):
        self.model = model
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(model.encoder_q.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4)

    def train_one_epoch(self, loader, epoch):
        self.model.train()
        total = 0.0
        for x in loader:
            im_q = x + 0.1 * torch.randn_like(x)
            im_k = x + 0.1 * torch.randn_like(x)
            output, target = self.model(im_q, im_k)
            loss = self.criterion(output, target)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        print(f"epoch {epoch} loss {total / len(loader):.4f}")


def main():
    torch.manual_seed(0)
    loader = [torch.randn(16, 24) for _ in range(6)]
    runner = PretrainRunner(MoCo())
    for epoch in range(3):
        runner.train_one_epoch(loader, epoch)


if __name__ == "__main__":
    main()
