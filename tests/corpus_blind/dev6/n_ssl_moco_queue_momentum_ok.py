# corpus: MoCo v2 builder: key encoder updated by momentum under no_grad, keys computed without grad, negatives read from a clone of the queue before the queue is overwritten in place by _dequeue_and_enqueue (correct)
# source: https://github.com/facebookresearch/moco/issues/144
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyResNet(nn.Module):
    def __init__(self, num_classes=128):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        return self.fc(self.features(x))


class MoCo(nn.Module):
    def __init__(self, base_encoder, dim=32, K=64, m=0.999, T=0.07, mlp=True):
        super().__init__()
        self.K, self.m, self.T = K, m, T
        self.encoder_q = base_encoder(num_classes=dim)
        self.encoder_k = base_encoder(num_classes=dim)
        if mlp:  # hack: brute-force replacement
            dim_mlp = self.encoder_q.fc.weight.shape[1]
            self.encoder_q.fc = nn.Sequential(nn.Linear(dim_mlp, dim_mlp), nn.ReLU(), self.encoder_q.fc)
            self.encoder_k.fc = nn.Sequential(nn.Linear(dim_mlp, dim_mlp), nn.ReLU(), self.encoder_k.fc)
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data.copy_(param_q.data)  # initialize
            param_k.requires_grad = False  # not update by gradient

        # create the queue
        self.register_buffer("queue", torch.randn(dim, K))
        self.queue = nn.functional.normalize(self.queue, dim=0)
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def _momentum_update_key_encoder(self):
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data = param_k.data * self.m + param_q.data * (1.0 - self.m)

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys):
        batch_size = keys.shape[0]
        ptr = int(self.queue_ptr)
        assert self.K % batch_size == 0  # for simplicity
        # replace the keys at ptr (dequeue and enqueue)
        self.queue[:, ptr:ptr + batch_size] = keys.T
        ptr = (ptr + batch_size) % self.K  # move pointer
        self.queue_ptr[0] = ptr

    def forward(self, im_q, im_k):
        # compute query features
        q = self.encoder_q(im_q)  # queries: NxC
        q = nn.functional.normalize(q, dim=1)

        # compute key features
        with torch.no_grad():  # no gradient to keys
            self._momentum_update_key_encoder()  # update the key encoder
            k = self.encoder_k(im_k)  # keys: NxC
            k = nn.functional.normalize(k, dim=1)

        # positive logits: Nx1
        l_pos = torch.einsum("nc,nc->n", [q, k]).unsqueeze(-1)
        # negative logits: NxK
        l_neg = torch.einsum("nc,ck->nk", [q, self.queue.clone().detach()])

        logits = torch.cat([l_pos, l_neg], dim=1)
        logits /= self.T
        labels = torch.zeros(logits.shape[0], dtype=torch.long)

        # dequeue and enqueue
        self._dequeue_and_enqueue(k)
        return logits, labels


def two_crops(images):
    def aug(x):
        return x.flip(-1) + 0.05 * torch.randn_like(x) if torch.rand(()) < 0.5 else x + 0.05 * torch.randn_like(x)
    return aug(images), aug(images)


def train(model, criterion, optimizer, epoch, args):
    model.train()
    for i in range(args.iters):
        images = torch.rand(args.batch_size, 3, 16, 16)
        im_q, im_k = two_crops(images)
        output, target = model(im_q=im_q, im_k=im_k)
        loss = criterion(output, target)
        acc1 = (output.argmax(dim=1) == target).float().mean()

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print("epoch %d iter %d loss %.4f acc@1 %.2f" % (epoch, i, loss.item(), acc1.item()))


def main():
    parser = argparse.ArgumentParser(description="MoCo Training")
    parser.add_argument("--moco-dim", default=32, type=int)
    parser.add_argument("--moco-k", default=32, type=int)
    parser.add_argument("--moco-m", default=0.999, type=float)
    parser.add_argument("--moco-t", default=0.2, type=float)
    parser.add_argument("--lr", default=0.03, type=float)
    parser.add_argument("--batch-size", default=8, type=int)
    parser.add_argument("--epochs", default=2, type=int)
    parser.add_argument("--iters", default=3, type=int)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = MoCo(TinyResNet, args.moco_dim, args.moco_k, args.moco_m, args.moco_t, mlp=True)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9, weight_decay=1e-4)
    w_before = model.encoder_q.features[0].weight.detach().clone()
    for epoch in range(args.epochs):
        train(model, criterion, optimizer, epoch, args)
    print("query encoder moved:", (model.encoder_q.features[0].weight - w_before).abs().sum().item() > 0)


if __name__ == "__main__":
    main()
