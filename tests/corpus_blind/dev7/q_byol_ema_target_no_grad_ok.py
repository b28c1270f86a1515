# corpus: BYOL/GraphMAE2-style student-teacher trainer: the EMA teacher is updated in place inside torch.no_grad() after the optimizer step, the teacher branch is run under no_grad, and the student predictor regresses onto the detached teacher projection (correct)
# source: https://github.com/THUDM/GraphMAE2/issues/1
import argparse
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class PreModel(nn.Module):
    def __init__(self, in_dim=24, hidden=32, out_dim=16, momentum=0.996):
        super().__init__()
        self._momentum = momentum
        self.encoder = nn.Sequential(nn.Linear(in_dim, hidden), nn.PReLU(), nn.Linear(hidden, hidden))
        self.projector = nn.Sequential(nn.Linear(hidden, out_dim), nn.PReLU(), nn.Linear(out_dim, out_dim))
        self.predictor = nn.Sequential(nn.PReLU(), nn.Linear(out_dim, out_dim))
        self.encoder_ema = copy.deepcopy(self.encoder)
        self.projector_ema = copy.deepcopy(self.projector)
        for p in list(self.encoder_ema.parameters()) + list(self.projector_ema.parameters()):
            p.requires_grad_(False)

    def forward(self, x, mask_rate=0.5):
        mask = (torch.rand_like(x) > mask_rate).float()
        rep = self.encoder(x * mask)
        pred = self.predictor(self.projector(rep))
        with torch.no_grad():
            target = self.projector_ema(self.encoder_ema(x))
        loss_latent = 2 - 2 * F.cosine_similarity(pred, target.detach(), dim=-1).mean()
        loss_rec = F.mse_loss(rep @ rep.new_ones(rep.size(1), x.size(1)) / rep.size(1), x)
        return loss_latent + loss_rec

    def ema_update(self):
        def update(student, teacher):
            with torch.no_grad():
                m = self._momentum
                for param_q, param_k in zip(student.parameters(), teacher.parameters()):
                    param_k.data.mul_(m).add_((1 - m) * param_q.detach().data)
        update(self.encoder, self.encoder_ema)
        update(self.projector, self.projector_ema)


def pretrain(model, batches, optimizer, max_epoch):
    for epoch in range(max_epoch):
        model.train()
        for x in batches:
            loss = model(x)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            model.ema_update()
        print(f"# Epoch {epoch}: train_loss: {loss.item():.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--max_epoch", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = PreModel()
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(params, lr=args.lr)
    before = model.encoder_ema[0].weight.detach().clone()
    pretrain(model, [torch.randn(32, 24) for _ in range(3)], optimizer, args.max_epoch)
    assert not torch.equal(before, model.encoder_ema[0].weight)
    assert model.encoder[0].weight.grad is not None


if __name__ == "__main__":
    main()
