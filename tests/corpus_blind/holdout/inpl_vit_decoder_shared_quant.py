# corpus: two ViT decoders share one quantised latent; each adds its positional embedding with `token += ...`, so the second decoder overwrites the tensor the first decoder's Linear saved
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/thuanz123/enhancing-transformers/issues/11
import torch
import torch.nn as nn


class PreNormBlock(nn.Module):
    def __init__(self, dim, heads=2, mlp_ratio=2):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * mlp_ratio), nn.GELU(), nn.Linear(dim * mlp_ratio, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class ViTDecoder(nn.Module):
    def __init__(self, num_tokens=4, dim=8, depth=1, out_dim=12):
        super().__init__()
        self.de_pos_embedding = nn.Parameter(torch.randn(1, num_tokens, dim) * 0.02)
        self.blocks = nn.ModuleList([PreNormBlock(dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.to_pixel = nn.Linear(dim, out_dim)

    def forward(self, token):
        token += self.de_pos_embedding  # expect: GG107
        x = token
        for blk in self.blocks:
            x = blk(x)
        return self.to_pixel(self.norm(x))


class VectorQuantizer(nn.Module):
    def __init__(self, n_embed=16, dim=8):
        super().__init__()
        self.embedding = nn.Embedding(n_embed, dim)

    def forward(self, z):
        d = (z.unsqueeze(-2) - self.embedding.weight).pow(2).sum(-1)
        idx = d.argmin(-1)
        z_q = self.embedding(idx)
        loss = (z_q - z.detach()).pow(2).mean() + 0.25 * (z_q.detach() - z).pow(2).mean()
        z_q = z + (z_q - z).detach()
        return z_q, loss


class TwoHeadVQ(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(12, 8)
        self.quantizer = VectorQuantizer()
        self.decoder_a = ViTDecoder()
        self.decoder_b = ViTDecoder()

    def forward(self, x):
        quant, q_loss = self.quantizer(self.encoder(x))
        rec_a = self.decoder_a(quant)
        rec_b = self.decoder_b(quant)  # also: GG107
        return rec_a, rec_b, q_loss


def main():
    torch.manual_seed(0)
    model = TwoHeadVQ()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(2, 4, 12)
    rec_a, rec_b, q_loss = model(x)
    loss = (rec_a - x).abs().mean() + (rec_b - x).pow(2).mean() + q_loss
    opt.zero_grad()
    loss.backward()  # also: GG107
    opt.step()


if __name__ == "__main__":
    main()
