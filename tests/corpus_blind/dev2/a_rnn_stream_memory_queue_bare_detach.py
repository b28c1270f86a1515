# corpus: StreamPETR-style streaming detector keeps a top-k memory queue across frames; post_update_memory calls rec_memory.detach() as a bare statement, so the queue still carries the previous frame's graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/exiawsh/StreamPETR/issues/63
import torch
import torch.nn as nn
import torch.nn.functional as F


def topk_gather(feat, topk_indexes):
    idx = topk_indexes.expand(-1, -1, feat.shape[-1])
    return torch.gather(feat, 1, idx)


class StreamHead(nn.Module):
    def __init__(self, dim=16, num_query=8, memory_len=12, topk=4, num_classes=3):
        super().__init__()
        self.query_embed = nn.Parameter(torch.randn(num_query, dim))
        self.attn = nn.MultiheadAttention(dim, 2, batch_first=True)
        self.cls = nn.Linear(dim, num_classes)
        self.memory_len, self.topk, self.dim = memory_len, topk, dim
        self.memory_embedding = None

    def reset_memory(self, batch_size):
        self.memory_embedding = torch.zeros(batch_size, self.memory_len, self.dim)

    def pre_update_memory(self, prev_exists):
        self.memory_embedding = self.memory_embedding * prev_exists.view(-1, 1, 1)

    def post_update_memory(self, outs_dec, cls_scores):
        rec_score = cls_scores.sigmoid().max(-1, keepdim=True).values
        _, topk_indexes = torch.topk(rec_score, self.topk, dim=1)
        rec_memory = topk_gather(outs_dec, topk_indexes)
        rec_memory.detach()  # expect: GG112
        self.memory_embedding = torch.cat([rec_memory, self.memory_embedding], dim=1)[:, :self.memory_len]  # also: GG112

    def forward(self, img_feats, prev_exists):
        self.pre_update_memory(prev_exists)
        q = self.query_embed.unsqueeze(0).expand(img_feats.shape[0], -1, -1)
        kv = torch.cat([img_feats, self.memory_embedding], dim=1)
        outs_dec, _ = self.attn(q, kv, kv)
        cls_scores = self.cls(outs_dec)
        self.post_update_memory(outs_dec, cls_scores)
        return cls_scores


class StreamDetector(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(6, dim), nn.ReLU())
        self.head = StreamHead(dim)

    def forward_train(self, frame, labels, prev_exists):
        cls_scores = self.head(self.backbone(frame), prev_exists)
        return {"loss_cls": F.cross_entropy(cls_scores.flatten(0, 1), labels.flatten())}


def train_scene(model, optimizer, num_frames=4, batch_size=2):
    model.head.reset_memory(batch_size)
    for t in range(num_frames):
        frame = torch.randn(batch_size, 10, 6)
        labels = torch.randint(0, 3, (batch_size, 8))
        prev_exists = torch.ones(batch_size) if t > 0 else torch.zeros(batch_size)
        losses = model.forward_train(frame, labels, prev_exists)
        loss = sum(losses.values())
        optimizer.zero_grad()
        loss.backward()  # also: GG112
        optimizer.step()
        print(f"frame {t}: loss={loss.item():.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = StreamDetector()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    train_scene(model, optimizer)
