# corpus: TextCNN forward collects one pooled map per filter size in a list over a ModuleList built from a size list, then concatenates it (no leak: consumed in the same forward)
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
filter_sizes = [2, 2, 2]


class TextCNN(nn.Module):
    def __init__(self, vocab=10, emb=2, filters=3, classes=2):
        super().__init__()
        self.total = filters * len(filter_sizes)
        self.embed = nn.Embedding(vocab, emb)
        self.fc = nn.Linear(self.total, classes)
        self.convs = nn.ModuleList([nn.Conv2d(1, filters, (size, emb)) for size in filter_sizes])

    def forward(self, x):
        e = self.embed(x).unsqueeze(1)
        pooled_outputs = []
        for i, conv in enumerate(self.convs):
            h = F.relu(conv(e))
            pooled = F.max_pool2d(h, (x.shape[1] - filter_sizes[i] + 1, 1)).permute(0, 3, 2, 1)
            pooled_outputs.append(pooled)
        h_pool = torch.cat(pooled_outputs, len(filter_sizes))
        return self.fc(torch.reshape(h_pool, [-1, self.total]))


model = TextCNN()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
inputs = torch.randint(0, 10, (6, 3))
targets = torch.randint(0, 2, (6,))
for epoch in range(20):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(inputs), targets)
    loss.backward()
    optimizer.step()
print("loss", loss.item())
