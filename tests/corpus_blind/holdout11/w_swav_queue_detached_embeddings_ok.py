# corpus: SwAV-style training keeps a feature queue across iterations, filled in place under no_grad from embedding.detach(); codes come from Sinkhorn, only the swapped prediction trains: correct
# source: https://github.com/facebookresearch/swav/issues/48
import torch
import torch.nn as nn
import torch.nn.functional as F


class SwAVModel(nn.Module):
    def __init__(self, in_dim=10, feat_dim=4, nmb_prototypes=5):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, 16), nn.ReLU())
        self.projection_head = nn.Linear(16, feat_dim)
        self.prototypes = nn.Linear(feat_dim, nmb_prototypes, bias=False)

    def forward(self, inputs):
        x = F.normalize(self.projection_head(self.backbone(torch.cat(inputs))), dim=1, p=2)
        return x, self.prototypes(x)


@torch.no_grad()
def distributed_sinkhorn(out, epsilon=0.05, sinkhorn_iterations=3):
    Q = torch.exp(out / epsilon).t()
    B, K = Q.shape[1], Q.shape[0]
    Q /= torch.sum(Q)
    for _ in range(sinkhorn_iterations):
        Q /= torch.sum(Q, dim=1, keepdim=True)
        Q /= K
        Q /= torch.sum(Q, dim=0, keepdim=True)
        Q /= B
    Q *= B
    return Q.t()


def train_step(model, optimizer, inputs, queue, use_the_queue, bs, temperature=0.1, crops_for_assign=(0, 1)):
    with torch.no_grad():
        w = model.prototypes.weight.data.clone()
        w = F.normalize(w, dim=1, p=2)
        model.prototypes.weight.copy_(w)

    embedding, output = model(inputs)
    embedding = embedding.detach()
    loss = 0
    for i, crop_id in enumerate(crops_for_assign):
        with torch.no_grad():
            out = output[bs * crop_id: bs * (crop_id + 1)].detach()
            if queue is not None:
                if use_the_queue or not torch.all(queue[i, -1, :] == 0):
                    use_the_queue = True
                    out = torch.cat((torch.mm(queue[i], model.prototypes.weight.t()), out))
                queue[i, bs:] = queue[i, :-bs].clone()
                queue[i, :bs] = embedding[crop_id * bs: (crop_id + 1) * bs]
            q = distributed_sinkhorn(out)[-bs:]
        subloss = 0
        for v in [c for c in range(len(inputs)) if c != crop_id]:
            x = output[bs * v: bs * (v + 1)] / temperature
            subloss -= torch.mean(torch.sum(q * F.log_softmax(x, dim=1), dim=1))
        loss += subloss / (len(inputs) - 1)
    loss /= len(crops_for_assign)

    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item(), use_the_queue


def main(iterations=5, bs=4, queue_length=8):
    torch.manual_seed(0)
    model = SwAVModel()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    queue = torch.zeros(2, queue_length, 4)
    use_the_queue = False
    before = model.backbone[0].weight.detach().clone()
    for it in range(iterations):
        base = torch.randn(bs, 10)
        inputs = [base + 0.1 * torch.randn_like(base), base + 0.1 * torch.randn_like(base)]
        loss, use_the_queue = train_step(model, optimizer, inputs, queue, use_the_queue, bs)
        print(it, "loss", round(loss, 4), "queue in use", use_the_queue)
    print("backbone moved", (model.backbone[0].weight - before).abs().max().item())


if __name__ == "__main__":
    main()
