# corpus: discrete VAE trainer that runs a test pass with model.eval() and only switches back to train() when it saves a checkpoint; training then goes through the eval branch, which scatter_()s the argmax into the softmax output that SoftmaxBackward needs
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/yashbonde/dall-e-baby/issues/1
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import einsum


class VQVAE_v3(nn.Module):
    def __init__(self, in_channels=3, embedding_dim=8, num_embeddings=16, hidden=12):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(in_channels, hidden, 4, stride=2, padding=1), nn.LeakyReLU(),
            nn.Conv2d(hidden, num_embeddings, 3, padding=1))
        self.codebook = nn.Embedding(num_embeddings, embedding_dim)
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(embedding_dim, hidden, 4, stride=2, padding=1), nn.LeakyReLU(),
            nn.Conv2d(hidden, in_channels, 3, padding=1), nn.Tanh())

    def forward(self, input):
        encoding = self.encoder(input)
        if self.training:
            softmax = F.gumbel_softmax(encoding, tau=1.0, hard=True, dim=1)
        else:
            # during testing we skip the gumbel noise and take a hard argmax
            softmax = F.softmax(encoding, dim=1)
            softmax = softmax.scatter_(1, torch.argmax(softmax, dim=1).unsqueeze(1), 1)  # expect: GG107
        encoding_ids = torch.argmax(softmax, dim=1).view(encoding.size(0), -1)
        quantized_inputs = einsum("bdhw,dn->bnhw", softmax, self.codebook.weight)
        recons = self.decoder(quantized_inputs)
        loss = F.mse_loss(recons, input)
        return encoding_ids, loss, recons


class DiscreteVAETrainer:
    def __init__(self, model, train, test=None):
        self.model = model
        self.train_dataset = train
        self.test_dataset = test

    def train(self, n_epochs, lr, test_every=2, save_every=10):
        model = self.model
        optim = torch.optim.Adam(model.parameters(), lr=lr)
        gs = 0
        train_losses = [-1]
        model.train()
        for epoch in range(n_epochs):
            for d in self.train_dataset:
                _, loss, _ = model(d)
                loss = loss.mean()
                optim.zero_grad()
                loss.backward()  # also: GG107
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.5)
                optim.step()
                gs += 1
                train_losses.append(loss.item())

                if self.test_dataset is not None and gs % test_every == 0:
                    model = model.eval()
                    test_loss = []
                    for td in self.test_dataset:
                        with torch.no_grad():
                            _, tl, output_img = model(td)
                        test_loss.append(tl.item())
                    print(f"[TEST - {epoch}] gs {gs} loss {np.mean(test_loss):.4f}")

                if gs and save_every and gs % save_every == 0:
                    print(f"saving checkpoint at {gs}")
                    model = model.train()  # convert model back to training mode
        return train_losses


if __name__ == "__main__":
    torch.manual_seed(0)
    train_data = [torch.rand(4, 3, 8, 8) * 2 - 1 for _ in range(4)]
    test_data = [torch.rand(4, 3, 8, 8) * 2 - 1 for _ in range(2)]
    trainer = DiscreteVAETrainer(VQVAE_v3(), train_data, test_data)
    trainer.train(n_epochs=2, lr=1e-3)
