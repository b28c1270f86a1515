# corpus: GRU encoder-decoder trained with REINFORCE on sampled tokens (sequence-level reward); the trainer keeps one policy-gradient loss per decoding step and calls backward on each separately, but all steps share the encoder and the decoder's hidden-state chain, so the second backward hits freed buffers
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/pytorch/pytorch/issues/1311
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)

SRC_VOCAB, TGT_VOCAB, HID, BOS = 20, 20, 32, 0


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(SRC_VOCAB, HID)
        self.gru = nn.GRU(HID, HID, batch_first=True)

    def forward(self, src):
        _, h = self.gru(self.embed(src))
        return h


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(TGT_VOCAB, HID)
        self.cell = nn.GRUCell(HID, HID)
        self.out = nn.Linear(HID, TGT_VOCAB)

    def forward(self, token, hidden):
        hidden = self.cell(self.embed(token), hidden)
        return F.log_softmax(self.out(hidden), dim=-1), hidden


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder, self.decoder = Encoder(), Decoder()

    def sample(self, src, max_len=6):
        hidden = self.encoder(src).squeeze(0)
        token = torch.full((src.size(0),), BOS, dtype=torch.long)
        tokens, log_probs = [], []
        for _ in range(max_len):
            logp, hidden = self.decoder(token, hidden)
            dist = torch.distributions.Categorical(logits=logp)
            token = dist.sample()
            tokens.append(token)
            log_probs.append(dist.log_prob(token))
        return torch.stack(tokens, dim=1), log_probs


def bleu_like_reward(sampled, reference):
    return (sampled == reference).float().mean(dim=1)


class ReinforceTrainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.baseline = 0.0

    def train_step(self, src, ref):
        self.optimizer.zero_grad()
        sampled, step_log_probs = self.model.sample(src, max_len=ref.size(1))
        reward = bleu_like_reward(sampled, ref)
        advantage = reward - self.baseline
        self.baseline = 0.9 * self.baseline + 0.1 * reward.mean().item()
        step_losses = [-(lp * advantage).mean() for lp in step_log_probs]
        for step_loss in step_losses:
            step_loss.backward()  # expect: GG102
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
        self.optimizer.step()
        return reward.mean().item()


def main():
    model = Seq2Seq()
    trainer = ReinforceTrainer(model)
    for it in range(3):
        src = torch.randint(1, SRC_VOCAB, (8, 7))
        ref = torch.randint(1, TGT_VOCAB, (8, 6))
        print(it, trainer.train_step(src, ref))


if __name__ == "__main__":
    main()
