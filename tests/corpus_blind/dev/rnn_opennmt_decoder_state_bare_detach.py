# corpus: OpenNMT-style RNNDecoderState.detach() calls h.detach() on each member and drops the result, so truncated BPTT chunks stay chained
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/OpenNMT/OpenNMT-py/issues/403
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 20
EMB = 8
HID = 16


class RNNDecoderState:
    def __init__(self, hidden, input_feed):
        self.hidden = hidden
        self.input_feed = input_feed

    @property
    def _all(self):
        return self.hidden + (self.input_feed,)

    def update_state(self, hidden, input_feed):
        self.hidden = hidden  # also: GG104
        self.input_feed = input_feed

    def detach(self):
        for h in self._all:
            h.detach()  # expect: GG112, GG104


class NMTModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb = nn.Embedding(VOCAB, EMB)
        self.tgt_emb = nn.Embedding(VOCAB, EMB)
        self.encoder = nn.LSTM(EMB, HID)
        self.decoder = nn.LSTMCell(EMB + HID, HID)
        self.generator = nn.Linear(HID, VOCAB)

    def init_decoder_state(self, enc_final):
        h, c = enc_final
        batch = h.size(1)
        return RNNDecoderState((h[-1], c[-1]), torch.zeros(batch, HID))

    def forward(self, src, tgt, dec_state=None):
        _, enc_final = self.encoder(self.src_emb(src))
        state = self.init_decoder_state(enc_final) if dec_state is None else dec_state
        h, c = state.hidden
        feed = state.input_feed
        outs = []
        for emb_t in self.tgt_emb(tgt):
            h, c = self.decoder(torch.cat([emb_t, feed], dim=1), (h, c))
            feed = h
            outs.append(h)
        state.update_state((h, c), feed)
        return torch.stack(outs), state


class Trainer:
    def __init__(self, model, trunc_size=3):
        self.model = model
        self.trunc_size = trunc_size
        self.optim = torch.optim.SGD(model.parameters(), lr=0.1)

    def _gradient_accumulation(self, src, tgt):
        self.model.zero_grad()
        dec_state = None
        tgt_len = tgt.size(0) - 1
        for j in range(0, tgt_len, self.trunc_size):
            tgt_in = tgt[j:j + self.trunc_size]
            tgt_out = tgt[j + 1:j + 1 + self.trunc_size]
            outputs, dec_state = self.model(src, tgt_in[:tgt_out.size(0)], dec_state)
            logits = self.model.generator(outputs)
            loss = F.cross_entropy(logits.view(-1, VOCAB), tgt_out.reshape(-1))
            loss.backward()  # also: GG112, GG104
            if dec_state is not None:
                dec_state.detach()
        self.optim.step()


def main():
    torch.manual_seed(0)
    model = NMTModel()
    trainer = Trainer(model)
    src = torch.randint(0, VOCAB, (5, 4))
    tgt = torch.randint(0, VOCAB, (10, 4))
    trainer._gradient_accumulation(src, tgt)


if __name__ == "__main__":
    main()
