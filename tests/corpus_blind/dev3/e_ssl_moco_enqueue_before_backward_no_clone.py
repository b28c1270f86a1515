# corpus: MoCo builder computes the negative logits against self.queue directly (no clone) and then enqueues the new keys in place inside forward, before the training loop calls loss.backward()
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/facebookresearch/moco/issues/21
import torch
import torch.nn as nn
import torch.nn.functional as F


def base_encoder(num_classes=16):
    return nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 32), nn.ReLU(), nn.Linear(32, num_classes))


class MoCo(nn.Module):
    def __init__(self, base_encoder, dim=16, K=32, m=0.999, T=0.07):
        super().__init__()
        self.K, self.m, self.T = K, m, T
        self.encoder_q = base_encoder(num_classes=dim)
        self.encoder_k = base_encoder(num_classes=dim)
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data.copy_(param_q.data)
            param_k.requires_grad = False
        self.register_buffer("queue", F.normalize(torch.randn(dim, K), dim=0))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def _momentum_update_key_encoder(self):
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data = param_k.data * self.m + param_q.data * (1.0 - self.m)

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys):
        batch_size = keys.shape[0]
        ptr = int(self.queue_ptr)
        assert self.K % batch_size == 0
        self.queue[:, ptr:ptr + batch_size] = keys.T  # also: GG107
        self.queue_ptr[0] = (ptr + batch_size) % self.K

    def forward(self, im_q, im_k):
        q = F.normalize(self.encoder_q(im_q), dim=1)
        with torch.no_grad():
            self._momentum_update_key_encoder()
            k = F.normalize(self.encoder_k(im_k), dim=1)

        l_pos = torch.einsum("nc,nc->n", [q, k]).unsqueeze(-1)
        l_neg = torch.einsum("nc,ck->nk", [q, self.queue])  # expect: GG107
        logits = torch.cat([l_pos, l_neg], dim=1) / self.T
        labels = torch.zeros(logits.shape[0], dtype=torch.long)

        self._dequeue_and_enqueue(k)
        return logits, labels


def augment(images):
    noise = 0.1 * torch.randn_like(images)
    flip = torch.rand(images.shape[0], 1, 1, 1) < 0.5
    return torch.where(flip, images.flip(-1), images) + noise


def train(loader, model, criterion, optimizer, epoch):
    model.train()
    for i, images in enumerate(loader):
        output, target = model(im_q=augment(images), im_k=augment(images))
        loss = criterion(output, target)
        acc1 = (output.argmax(dim=1) == target).float().mean()

        optimizer.zero_grad()
        loss.backward()  # also: GG107
        optimizer.step()
        print(f"Epoch [{epoch}][{i}] loss {loss.item():.4f} acc@1 {acc1.item():.3f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = MoCo(base_encoder, dim=16, K=32)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.9, weight_decay=1e-4)
    loader = [torch.randn(8, 3, 8, 8) for _ in range(3)]
    for epoch in range(2):
        train(loader, model, criterion, optimizer, epoch)
