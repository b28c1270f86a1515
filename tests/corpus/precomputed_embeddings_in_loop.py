# corpus: token embeddings computed once before the training loop with a trainable embedding layer
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn

torch.manual_seed(0)

vocab, dim, n_cls = 50, 16, 3
embedding = nn.Embedding(vocab, dim)
classifier = nn.Linear(dim, n_cls)
params = list(embedding.parameters()) + list(classifier.parameters())
optimizer = torch.optim.Adam(params, lr=1e-2)
loss_fn = nn.CrossEntropyLoss()

tokens = torch.randint(0, vocab, (8, 6))
labels = torch.randint(0, n_cls, (8,))
# "cache" the embeddings
sentence_vecs = embedding(tokens).mean(dim=1)  # expect: GG103

for epoch in range(5):
    optimizer.zero_grad()
    logits = classifier(sentence_vecs)
    loss = loss_fn(logits, labels)
    loss.backward()
    optimizer.step()
    print(epoch, loss.item())
