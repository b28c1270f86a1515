# corpus: Lofi-style music VAE trainer keeps each batch's chord/KL loss tensors (with their graphs) in lists, averages them into graph-bearing epoch losses, and the epoch report converts that history with NumPy
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/jacbz/Lofi/issues/14
import argparse

import numpy as np
import torch
from torch import nn

NUM_CHORDS = 12
MAX_CHORDS = 8


class Lofi2LofiModel(nn.Module):
    def __init__(self, hidden=32, z_dim=16):
        super().__init__()
        self.chord_emb = nn.Embedding(NUM_CHORDS, 16)
        self.encoder = nn.GRU(16, hidden, batch_first=True)
        self.mu = nn.Linear(hidden, z_dim)
        self.logvar = nn.Linear(hidden, z_dim)
        self.decoder = nn.GRU(z_dim, hidden, batch_first=True)
        self.chord_out = nn.Linear(hidden, NUM_CHORDS)
        self.tempo_out = nn.Linear(z_dim, 1)

    def forward(self, chords, max_num_chords):
        _, h = self.encoder(self.chord_emb(chords))
        mu, logvar = self.mu(h[-1]), self.logvar(h[-1])
        z = mu + torch.exp(0.5 * logvar) * torch.randn_like(mu)
        kl = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
        dec, _ = self.decoder(z.unsqueeze(1).repeat(1, max_num_chords, 1))
        return self.chord_out(dec), self.tempo_out(z), kl


def random_batch(batch_size):
    num_chords = torch.randint(3, MAX_CHORDS, (batch_size,))
    return {
        "chords": torch.randint(0, NUM_CHORDS, (batch_size, MAX_CHORDS)),
        "num_chords": num_chords,
        "tempo": torch.rand(batch_size),
    }


def report_epoch(epochs, train_losses, val_losses):
    train_curve = np.asarray(train_losses)  # expect: GG110
    val_curve = np.asarray(val_losses)
    best = int(np.argmin(val_curve))
    print("epochs %s  train %s  val %s  best epoch %d" % (epochs, train_curve.round(3), val_curve.round(3), best))


def train(model, args):
    ce_loss = nn.CrossEntropyLoss(reduction="none")
    l1_loss = nn.L1Loss(reduction="mean")
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)

    epochs = []
    train_losses_chords, train_losses_kl = [], []
    val_losses_chords, val_losses_kl = [], []

    # losses for one batch of data
    def compute_loss(data):
        num_chords = data["num_chords"]
        max_num_chords = int(num_chords.max())
        chords_gt = data["chords"][:, :max_num_chords]
        pred_chords, pred_tempo, kl = model(chords_gt, max_num_chords)

        arange = torch.arange(max_num_chords).repeat((chords_gt.shape[0], 1))
        mask_chord = arange <= num_chords.unsqueeze(1)
        loss_chords = ce_loss(pred_chords.permute(0, 2, 1), chords_gt)
        loss_chords = torch.masked_select(loss_chords, mask_chord).mean()
        loss_tempo = l1_loss(pred_tempo[:, 0], data["tempo"]) / 5
        loss_total = loss_chords + kl + loss_tempo
        return loss_total, loss_chords, kl, loss_tempo

    for epoch in range(args.epochs):
        epochs.append(epoch)
        ep_train_losses_chords, ep_train_losses_kl = [], []
        ep_val_losses_chords, ep_val_losses_kl = [], []

        # TRAINING
        model.train()
        for batch in range(args.batches):
            loss, loss_chords, kl_loss, loss_tempo = compute_loss(random_batch(args.batch_size))
            ep_train_losses_chords.append(loss_chords)  # expect: GG301
            ep_train_losses_kl.append(kl_loss)  # expect: GG301

            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss = loss.item()
            print(f"\tBatch {batch}:\tLoss {loss:.3f} (C: {loss_chords.item():.3f} + KL: {kl_loss.item():.3f})")

        # VALIDATION
        model.eval()
        for batch in range(args.batches):
            with torch.no_grad():
                loss, loss_chords, kl_loss, loss_tempo = compute_loss(random_batch(args.batch_size))
                ep_val_losses_chords.append(loss_chords)
                ep_val_losses_kl.append(kl_loss)

        ep_train_loss_chord = sum(ep_train_losses_chords) / len(ep_train_losses_chords)
        ep_train_loss_kl = sum(ep_train_losses_kl) / len(ep_train_losses_kl)
        ep_val_loss_chord = sum(ep_val_losses_chords) / len(ep_val_losses_chords)
        ep_val_loss_kl = sum(ep_val_losses_kl) / len(ep_val_losses_kl)

        train_losses_chords.append(ep_train_loss_chord)  # also: GG301
        train_losses_kl.append(ep_train_loss_kl)  # also: GG301
        val_losses_chords.append(ep_val_loss_chord)
        val_losses_kl.append(ep_val_loss_kl)

        report_epoch(epochs, train_losses_chords, val_losses_chords)


def main():
    parser = argparse.ArgumentParser(description="lofi2lofi")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batches", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--weight_decay", type=float, default=1e-4)
    args = parser.parse_args([])
    torch.manual_seed(0)
    train(Lofi2LofiModel(), args)


if __name__ == "__main__":
    main()
