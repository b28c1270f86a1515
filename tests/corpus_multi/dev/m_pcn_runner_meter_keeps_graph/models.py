import torch
import torch.nn as nn


def chamfer_distance_mean(xyz1, xyz2):
    """Symmetric mean Chamfer distance between point sets (B, N, 3) and (B, M, 3)."""
    d = torch.cdist(xyz1, xyz2) ** 2
    return d.min(dim=2)[0].mean(dim=1) + d.min(dim=1)[0].mean(dim=1)


class PointEncoder(nn.Module):
    def __init__(self, feat_dim=32):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, feat_dim))

    def forward(self, points):
        return self.mlp(points).max(dim=1)[0]


class StyleFoldingDecoder(nn.Module):
    """Folds a 2D grid conditioned on the global shape code (a tiny stand-in for SpareNet's style-based folding)."""

    def __init__(self, feat_dim=32, num_points=32):
        super().__init__()
        side = int(num_points ** 0.5)
        u = torch.linspace(-1, 1, side)
        grid = torch.stack(torch.meshgrid(u, u, indexing="ij"), dim=-1).view(-1, 2)
        self.register_buffer("grid", grid)
        self.fold = nn.Sequential(nn.Linear(feat_dim + 2, 32), nn.ReLU(), nn.Linear(32, 3))

    def forward(self, code):
        b = code.shape[0]
        grid = self.grid.unsqueeze(0).expand(b, -1, -1)
        code = code.unsqueeze(1).expand(-1, grid.shape[1], -1)
        return self.fold(torch.cat([code, grid], dim=-1))


class RefineNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.offset = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, coarse):
        return coarse + 0.1 * torch.tanh(self.offset(coarse))


class SpareNetGenerator(nn.Module):
    def __init__(self, num_points=36):
        super().__init__()
        self.encoder = PointEncoder()
        self.decoder = StyleFoldingDecoder(num_points=num_points)
        self.refine = RefineNet()

    def forward(self, data):
        code = self.encoder(data["partial_cloud"])
        coarse_ptcloud = self.decoder(code)
        middle_ptcloud = self.refine(coarse_ptcloud)
        refine_ptcloud = self.refine(middle_ptcloud)
        expansion_penalty = coarse_ptcloud.var(dim=1).sum(dim=-1)
        return coarse_ptcloud, middle_ptcloud, refine_ptcloud, expansion_penalty
