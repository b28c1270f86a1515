# corpus: CRD ContrastMemory writes the momentum-updated embeddings into its memory buffers without torch.no_grad(), so the bank carries the previous step's graph into the next loss
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/HobbitLong/RepDistiller/issues/37
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ContrastMemory(nn.Module):
    def __init__(self, input_size, output_size, K, T=0.07, momentum=0.5):
        super().__init__()
        self.n_data, self.K, self.T, self.momentum = output_size, K, T, momentum
        stdv = 1.0 / math.sqrt(input_size / 3)
        self.register_buffer("memory_v1", torch.rand(output_size, input_size).mul_(2 * stdv).add_(-stdv))
        self.register_buffer("memory_v2", torch.rand(output_size, input_size).mul_(2 * stdv).add_(-stdv))

    def forward(self, v1, v2, y, idx):
        batch_size, input_size = v1.size(0), v1.size(1)
        weight_v1 = torch.index_select(self.memory_v1, 0, idx.view(-1)).view(batch_size, self.K + 1, input_size)
        out_v2 = torch.exp(torch.bmm(weight_v1, v2.view(batch_size, input_size, 1)) / self.T)
        weight_v2 = torch.index_select(self.memory_v2, 0, idx.view(-1)).view(batch_size, self.K + 1, input_size)
        out_v1 = torch.exp(torch.bmm(weight_v2, v1.view(batch_size, input_size, 1)) / self.T)
        out_v1 = out_v1 / (out_v1.mean() * self.n_data)
        out_v2 = out_v2 / (out_v2.mean() * self.n_data)

        # update memory
        l_pos = torch.index_select(self.memory_v1, 0, y.view(-1))
        l_pos.mul_(self.momentum)
        l_pos.add_(torch.mul(v1, 1 - self.momentum))
        updated_v1 = l_pos.div(l_pos.pow(2).sum(1, keepdim=True).pow(0.5))
        self.memory_v1.index_copy_(0, y, updated_v1)  # expect: GG104

        ab_pos = torch.index_select(self.memory_v2, 0, y.view(-1))
        ab_pos.mul_(self.momentum)
        ab_pos.add_(torch.mul(v2, 1 - self.momentum))
        updated_v2 = ab_pos.div(ab_pos.pow(2).sum(1, keepdim=True).pow(0.5))
        self.memory_v2.index_copy_(0, y, updated_v2)  # also: GG104
        return out_v1, out_v2


class ContrastLoss(nn.Module):
    def __init__(self, n_data):
        super().__init__()
        self.n_data = n_data

    def forward(self, x):
        bsz, m = x.shape[0], x.size(1) - 1
        pn = 1.0 / float(self.n_data)
        log_d1 = torch.div(x.select(1, 0), x.select(1, 0).add(m * pn + 1e-7)).log_()
        log_d0 = torch.div(x.narrow(1, 1, m).clone().fill_(m * pn), x.narrow(1, 1, m).add(m * pn + 1e-7)).log_()
        return -(log_d1.sum(0) + log_d0.view(-1, 1).sum(0)) / bsz


class CRDLoss(nn.Module):
    def __init__(self, s_dim, t_dim, feat_dim, n_data, nce_k):
        super().__init__()
        self.embed_s = nn.Linear(s_dim, feat_dim)
        self.embed_t = nn.Linear(t_dim, feat_dim)
        self.contrast = ContrastMemory(feat_dim, n_data, nce_k)
        self.criterion_s, self.criterion_t = ContrastLoss(n_data), ContrastLoss(n_data)

    def forward(self, f_s, f_t, idx, contrast_idx):
        f_s = F.normalize(self.embed_s(f_s), dim=1)
        f_t = F.normalize(self.embed_t(f_t), dim=1)
        out_s, out_t = self.contrast(f_s, f_t, idx, contrast_idx)
        return self.criterion_s(out_s) + self.criterion_t(out_t)


def train_distill(loader, model_s, model_t, criterion_kd, optimizer, nce_k, n_data):
    model_s.train()
    model_t.eval()
    for batch_idx, (x, target, index) in enumerate(loader):
        contrast_idx = torch.cat([index.view(-1, 1), torch.randint(0, n_data, (x.size(0), nce_k))], dim=1)
        feat_s = model_s[0](x)
        logit_s = model_s[1](feat_s)
        with torch.no_grad():
            feat_t = model_t(x)
        loss = F.cross_entropy(logit_s, target) + 0.8 * criterion_kd(feat_s, feat_t, index, contrast_idx).squeeze()
        optimizer.zero_grad()
        loss.backward()  # also: GG104
        optimizer.step()
        print(f"batch {batch_idx}: loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    n_data, nce_k = 32, 8
    model_s = nn.Sequential(nn.Sequential(nn.Linear(10, 16), nn.ReLU()), nn.Linear(16, 4))
    model_t = nn.Sequential(nn.Linear(10, 24), nn.ReLU())
    criterion_kd = CRDLoss(16, 24, 8, n_data, nce_k)
    params = list(model_s.parameters()) + list(criterion_kd.embed_s.parameters()) + list(criterion_kd.embed_t.parameters())
    optimizer = torch.optim.SGD(params, lr=0.05, momentum=0.9)
    loader = [(torch.randn(4, 10), torch.randint(0, 4, (4,)), torch.randperm(n_data)[:4]) for _ in range(3)]
    train_distill(loader, model_s, model_t, criterion_kd, optimizer, nce_k, n_data)


if __name__ == "__main__":
    main()
