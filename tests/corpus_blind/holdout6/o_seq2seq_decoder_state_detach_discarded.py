# corpus: OpenNMT-style NMT trainer with truncated BPTT over target chunks; DecoderState.detach() was switched from h.detach_() (which raises on the input_feed view) to a bare h.detach(), whose result is thrown away, so the next chunk backpropagates into the previous chunk's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/Eurus-Holmes/MNMT/issues/6
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

PAD = 0


class RNNEncoder(nn.Module):
    def __init__(self, vocab_size, emb_size, hidden_size):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, emb_size, padding_idx=PAD)
        self.rnn = nn.LSTM(emb_size, hidden_size)

    def forward(self, src, lengths=None):
        emb = self.embeddings(src)
        memory_bank, encoder_final = self.rnn(emb)
        return encoder_final, memory_bank


class GlobalAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.linear_out = nn.Linear(dim * 2, dim, bias=False)

    def forward(self, source, memory_bank):
        # source: batch x dim ; memory_bank: batch x src_len x dim
        align = torch.bmm(memory_bank, source.unsqueeze(2)).squeeze(2)
        align_vectors = F.softmax(align, dim=-1)
        c = torch.bmm(align_vectors.unsqueeze(1), memory_bank).squeeze(1)
        attn_h = torch.tanh(self.linear_out(torch.cat([c, source], 1)))
        return attn_h, align_vectors


class DecoderState(object):
    """Interface for grouping together the current state of a recurrent decoder."""

    def detach(self):
        # h.detach_() fails with "Can't detach views in-place. Use detach() instead"
        # because input_feed is a view of the decoder output.
        for h in self._all:
            if h is not None:
                h.detach()  # expect: GG112


class RNNDecoderState(DecoderState):
    def __init__(self, hidden_size, rnnstate):
        if not isinstance(rnnstate, tuple):
            self.hidden = (rnnstate,)
        else:
            self.hidden = rnnstate
        self.coverage = None
        batch_size = self.hidden[0].size(1)
        self.input_feed = self.hidden[0].new_zeros(batch_size, hidden_size).unsqueeze(0)

    @property
    def _all(self):
        return self.hidden + (self.input_feed,)

    def update_state(self, rnnstate, input_feed, coverage):
        if not isinstance(rnnstate, tuple):
            self.hidden = (rnnstate,)
        else:
            self.hidden = rnnstate
        self.input_feed = input_feed
        self.coverage = coverage


class InputFeedRNNDecoder(nn.Module):
    def __init__(self, vocab_size, emb_size, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.embeddings = nn.Embedding(vocab_size, emb_size, padding_idx=PAD)
        self.rnn = nn.LSTMCell(emb_size + hidden_size, hidden_size)
        self.attn = GlobalAttention(hidden_size)

    def init_decoder_state(self, encoder_final):
        return RNNDecoderState(self.hidden_size, encoder_final)

    def forward(self, tgt, memory_bank, state):
        input_feed = state.input_feed.squeeze(0)
        h, c = state.hidden[0][0], state.hidden[1][0]
        decoder_outputs, attns = [], []
        emb = self.embeddings(tgt)
        memory_bank_t = memory_bank.transpose(0, 1)
        for emb_t in emb.split(1):
            decoder_input = torch.cat([emb_t.squeeze(0), input_feed], 1)
            h, c = self.rnn(decoder_input, (h, c))
            decoder_output, p_attn = self.attn(h, memory_bank_t)
            input_feed = decoder_output
            decoder_outputs += [decoder_output]
            attns += [p_attn]
        decoder_outputs = torch.stack(decoder_outputs)
        state.update_state((h.unsqueeze(0), c.unsqueeze(0)), decoder_outputs[-1].unsqueeze(0), None)
        return decoder_outputs, state, {"std": torch.stack(attns)}


class NMTModel(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, src, tgt, lengths, dec_state=None):
        tgt = tgt[:-1]  # exclude last target from inputs
        enc_final, memory_bank = self.encoder(src, lengths)
        enc_state = self.decoder.init_decoder_state(enc_final)
        decoder_outputs, dec_state, attns = self.decoder(
            tgt, memory_bank, enc_state if dec_state is None else dec_state)
        return decoder_outputs, attns, dec_state


class NMTLossCompute(nn.Module):
    def __init__(self, generator, vocab_size):
        super().__init__()
        self.generator = generator
        self.criterion = nn.NLLLoss(ignore_index=PAD, reduction="sum")

    def compute_loss(self, output, target):
        scores = self.generator(output.view(-1, output.size(2)))
        gtruth = target.reshape(-1)
        loss = self.criterion(scores, gtruth)
        n_correct = scores.max(1)[1].eq(gtruth).masked_select(gtruth.ne(PAD)).sum().item()
        return loss, n_correct


class Trainer(object):
    def __init__(self, model, train_loss, optim, trunc_size=0, grad_accum_count=1):
        self.model = model
        self.train_loss = train_loss
        self.optim = optim
        self.trunc_size = trunc_size
        self.grad_accum_count = grad_accum_count
        self.model.train()

    def train(self, train_iter, epoch):
        total_stats = {"loss": 0.0, "n_correct": 0, "n_words": 0}
        for i, batch in enumerate(train_iter):
            self._gradient_accumulation([batch], total_stats)
            print("epoch %d batch %d loss %.4f" % (epoch, i, total_stats["loss"] / max(1, total_stats["n_words"])))
        return total_stats

    def _gradient_accumulation(self, true_batchs, total_stats):
        if self.grad_accum_count > 1:
            self.model.zero_grad()

        for batch in true_batchs:
            src, src_lengths, tgt_outer = batch["src"], batch["src_lengths"], batch["tgt"]
            target_size = tgt_outer.size(0)
            trunc_size = self.trunc_size if self.trunc_size else target_size

            dec_state = None
            for j in range(0, target_size - 1, trunc_size):
                tgt = tgt_outer[j: j + trunc_size]

                if self.grad_accum_count == 1:
                    self.model.zero_grad()
                outputs, attns, dec_state = self.model(src, tgt, src_lengths, dec_state)

                loss, n_correct = self.train_loss.compute_loss(outputs, tgt_outer[j + 1: j + trunc_size])
                normalization = tgt_outer[j + 1: j + trunc_size].ne(PAD).sum().item()
                loss.div(normalization).backward()  # also: GG112
                total_stats["loss"] += loss.item()
                total_stats["n_correct"] += n_correct
                total_stats["n_words"] += normalization

                if self.grad_accum_count == 1:
                    self.optim.step()

                # If truncated, don't backprop fully.
                if dec_state is not None:
                    dec_state.detach()

        if self.grad_accum_count > 1:
            self.optim.step()


def make_batches(num_batches, batch_size, src_len, tgt_len, vocab_size):
    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(num_batches):
        src = torch.randint(1, vocab_size, (src_len, batch_size), generator=g)
        tgt = torch.randint(1, vocab_size, (tgt_len, batch_size), generator=g)
        batches.append({"src": src, "src_lengths": torch.full((batch_size,), src_len), "tgt": tgt})
    return batches


def main():
    parser = argparse.ArgumentParser(description="train.py")
    parser.add_argument("-word_vec_size", type=int, default=16)
    parser.add_argument("-rnn_size", type=int, default=24)
    parser.add_argument("-truncated_decoder", type=int, default=5,
                        help="Truncated bptt.")
    parser.add_argument("-accum_count", type=int, default=1)
    parser.add_argument("-learning_rate", type=float, default=1.0)
    parser.add_argument("-epochs", type=int, default=1)
    opt = parser.parse_args()

    torch.manual_seed(0)
    vocab_size = 30
    encoder = RNNEncoder(vocab_size, opt.word_vec_size, opt.rnn_size)
    decoder = InputFeedRNNDecoder(vocab_size, opt.word_vec_size, opt.rnn_size)
    model = NMTModel(encoder, decoder)
    model.generator = nn.Sequential(nn.Linear(opt.rnn_size, vocab_size), nn.LogSoftmax(dim=-1))
    train_loss = NMTLossCompute(model.generator, vocab_size)
    optim = torch.optim.SGD(model.parameters(), lr=opt.learning_rate)

    trainer = Trainer(model, train_loss, optim, opt.truncated_decoder, opt.accum_count)
    train_iter = make_batches(2, 4, 7, 12, vocab_size)
    for epoch in range(1, opt.epochs + 1):
        trainer.train(train_iter, epoch)


if __name__ == "__main__":
    main()
