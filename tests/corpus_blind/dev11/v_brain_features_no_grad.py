# corpus: SpeechBrain-style Brain for speaker classification: the model call sits inside the torch.no_grad() block meant only for feature extraction, so fit_batch backpropagates a loss without a graph
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/speechbrain/speechbrain/issues/735
from enum import Enum, auto

import torch
import torch.nn as nn
import torch.nn.functional as F


class Stage(Enum):
    TRAIN = auto()
    VALID = auto()


def compute_fbank(wavs, frame=16, hop=8):
    frames = wavs.unfold(1, frame, hop)  # (batch, n_frames, frame)
    spec = torch.fft.rfft(frames).abs() ** 2
    return torch.log1p(spec)  # (batch, n_frames, frame // 2 + 1)


class MeanVarNorm(nn.Module):
    def forward(self, feats):
        return (feats - feats.mean(dim=1, keepdim=True)) / (feats.std(dim=1, keepdim=True) + 1e-5)


class Brain:
    def __init__(self, modules, opt_class, hparams):
        self.modules = nn.ModuleDict(modules)
        self.hparams = hparams
        self.optimizer = opt_class(self.modules.parameters())
        self.step = 0

    def fit_batch(self, batch):
        outputs = self.compute_forward(batch, Stage.TRAIN)
        loss = self.compute_objectives(outputs, batch, Stage.TRAIN)
        loss.backward()  # also: GG106
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss.detach()

    def fit(self, epochs, train_set):
        for epoch in range(epochs):
            self.modules.train()
            avg_loss = 0.0
            for batch in train_set:
                self.step += 1
                loss = self.fit_batch(batch)
                avg_loss += (loss.item() - avg_loss) / self.step
            print(f"epoch {epoch}: train loss {avg_loss:.4f}")


class SpkIdBrain(Brain):
    def compute_forward(self, batch, stage):
        wavs, wav_lens = batch["sig"]
        feats = self.prepare_features(stage, wavs)
        # Running the encoder (prevent propagation to feature extraction)
        with torch.no_grad():  # also: GG106
            feats = self.modules.mean_var_norm(feats)
            predict = self.modules.model(feats)  # expect: GG106
        return {"predict": predict}

    def prepare_features(self, stage, wavs):
        if stage == Stage.TRAIN and self.hparams["add_noise"]:
            wavs = wavs + 0.01 * torch.randn_like(wavs)
        return compute_fbank(wavs)

    def compute_objectives(self, predictions, batch, stage):
        logits = predictions["predict"]
        spk_id = batch["spk_id_encoded"]
        return F.cross_entropy(logits, spk_id)


class Xvector(nn.Module):
    def __init__(self, n_feats=9, n_spk=3):
        super().__init__()
        self.tdnn = nn.Sequential(nn.Linear(n_feats, 16), nn.LeakyReLU(), nn.Linear(16, 16))
        self.out = nn.Linear(32, n_spk)

    def forward(self, feats):
        h = self.tdnn(feats)
        stats = torch.cat([h.mean(dim=1), h.std(dim=1)], dim=-1)  # statistics pooling
        return self.out(stats)


def make_batches(n=3, batch=4, samples=64):
    return [
        {"sig": (torch.randn(batch, samples), torch.ones(batch)), "spk_id_encoded": torch.randint(0, 3, (batch,))}
        for _ in range(n)
    ]


def main():
    torch.manual_seed(0)
    modules = {"model": Xvector(), "mean_var_norm": MeanVarNorm()}
    brain = SpkIdBrain(modules, lambda p: torch.optim.Adam(p, lr=1e-3), {"add_noise": True})
    brain.fit(epochs=2, train_set=make_batches())


if __name__ == "__main__":
    main()
