# corpus: GRU encoder with a Luong dot-attention decoder (teacher forcing) for translation; the trainer uses CrossEntropyLoss(reduction='none') to mask padding tokens but multiplies by the mask and never reduces, so backward is called on a per-token loss tensor
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: http://hbase.cn/archives/1390.html
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)

PAD, BOS, VOCAB, HID = 0, 1, 24, 32


class EncoderRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, HID, padding_idx=PAD)
        self.gru = nn.GRU(HID, HID, batch_first=True)

    def forward(self, src):
        outputs, hidden = self.gru(self.embedding(src))
        return outputs, hidden


class LuongAttnDecoderRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, HID, padding_idx=PAD)
        self.gru = nn.GRU(HID, HID, batch_first=True)
        self.concat = nn.Linear(2 * HID, HID)
        self.out = nn.Linear(HID, VOCAB)

    def forward(self, input_step, last_hidden, encoder_outputs):
        rnn_output, hidden = self.gru(self.embedding(input_step), last_hidden)
        attn_energies = torch.bmm(rnn_output, encoder_outputs.transpose(1, 2))
        attn_weights = F.softmax(attn_energies, dim=-1)
        context = torch.bmm(attn_weights, encoder_outputs)
        concat_output = torch.tanh(self.concat(torch.cat((rnn_output, context), dim=2)))
        return self.out(concat_output).squeeze(1), hidden, attn_weights


class Seq2SeqTrainer:
    def __init__(self, encoder, decoder, lr=1e-3):
        self.encoder, self.decoder = encoder, decoder
        params = list(encoder.parameters()) + list(decoder.parameters())
        self.optimizer = torch.optim.Adam(params, lr=lr)
        self.criterion = nn.CrossEntropyLoss(reduction="none")

    def forward_batch(self, src, tgt):
        encoder_outputs, hidden = self.encoder(src)
        decoder_input = torch.full((src.size(0), 1), BOS, dtype=torch.long)
        logits = []
        for t in range(tgt.size(1)):
            step_logits, hidden, _ = self.decoder(decoder_input, hidden, encoder_outputs)
            logits.append(step_logits)
            decoder_input = tgt[:, t].unsqueeze(1)
        return torch.stack(logits, dim=1)

    def train_step(self, src, tgt):
        self.optimizer.zero_grad()
        logits = self.forward_batch(src, tgt)
        mask = (tgt != PAD).float()
        per_token = self.criterion(logits.reshape(-1, VOCAB), tgt.reshape(-1)).view_as(mask)
        loss = per_token * mask  # expect: GG109
        loss.backward()  # also: GG109
        nn.utils.clip_grad_norm_(self.encoder.parameters(), 50.0)
        nn.utils.clip_grad_norm_(self.decoder.parameters(), 50.0)
        self.optimizer.step()
        return {"nll": (per_token * mask).sum().item() / mask.sum().item()}


def make_batch(batch=6, src_len=7, tgt_len=5):
    src = torch.randint(2, VOCAB, (batch, src_len))
    tgt = torch.randint(2, VOCAB, (batch, tgt_len))
    lengths = torch.randint(2, tgt_len + 1, (batch,))
    for i, n in enumerate(lengths):
        tgt[i, n:] = PAD
    return src, tgt


def main():
    trainer = Seq2SeqTrainer(EncoderRNN(), LuongAttnDecoderRNN())
    for it in range(3):
        src, tgt = make_batch()
        print(it, trainer.train_step(src, tgt))


if __name__ == "__main__":
    main()
