# corpus: VoiceLoop-style TTS trained with truncated BPTT keeps its memory buffer and attention position on the decoder between chunks but detaches them whenever a chunk is not the start of a sequence, and validation runs under no_grad, so nothing stale is backpropagated.
# source: https://github.com/facebookarchive/loop/issues/57
import argparse

import torch
import torch.nn as nn


def getLinear(dim_in, dim_out):
    return nn.Sequential(nn.Linear(dim_in, dim_in // 10), nn.ReLU(), nn.Linear(dim_in // 10, dim_out))


class MaskedMSE(nn.Module):
    def __init__(self):
        super(MaskedMSE, self).__init__()
        self.criterion = nn.MSELoss(reduction='sum')

    @staticmethod
    def _sequence_mask(sequence_length, max_len):
        batch_size = sequence_length.size(0)
        seq_range = torch.arange(0, max_len).long()
        seq_range_expand = seq_range.unsqueeze(0).expand(batch_size, max_len)
        seq_length_expand = sequence_length.unsqueeze(1).expand_as(seq_range_expand)
        return (seq_range_expand < seq_length_expand).t().float()

    def forward(self, input, target, lengths):
        max_len = input.size(0)
        mask = self._sequence_mask(lengths, max_len).unsqueeze(2)
        mask_ = mask.expand_as(input)
        self.loss = self.criterion(input * mask_, target * mask_)
        self.loss = self.loss / mask.sum()
        return self.loss


class Encoder(nn.Module):
    def __init__(self, opt):
        super(Encoder, self).__init__()
        self.lut_p = nn.Embedding(opt.vocabulary_size, opt.hidden_size, max_norm=1.0)
        self.lut_s = nn.Embedding(opt.nspk, opt.hidden_size, max_norm=1.0)

    def forward(self, input, speakers):
        outputs = self.lut_p(input)
        ident = self.lut_s(speakers)
        if ident.dim() == 3:
            ident = ident.squeeze(1)
        return outputs, ident


class GravesAttention(nn.Module):
    COEF = 0.3989422917366028

    def __init__(self, batch_size, mem_elem, K, attention_alignment):
        super(GravesAttention, self).__init__()
        self.K = K
        self.attention_alignment = attention_alignment
        self.epsilon = 1e-5
        self.sm = nn.Softmax(dim=1)
        self.N_a = getLinear(mem_elem, 3 * K)
        self.J = torch.arange(0, 500).float().expand(batch_size, self.K, 500)

    def forward(self, C, context, mu_tm1):
        gbk_t = self.N_a(C.view(C.size(0), C.size(1) * C.size(2)))
        gbk_t = gbk_t.view(gbk_t.size(0), -1, self.K)
        g_t = gbk_t[:, 0, :]
        b_t = gbk_t[:, 1, :]
        k_t = gbk_t[:, 2, :]
        g_t = self.sm(g_t) + self.epsilon
        sig_t = torch.exp(b_t) + self.epsilon
        mu_t = mu_tm1 + self.attention_alignment * torch.exp(k_t)
        g_t = g_t.unsqueeze(2).expand(g_t.size(0), g_t.size(1), context.size(1))
        sig_t = sig_t.unsqueeze(2).expand_as(g_t)
        mu_t_ = mu_t.unsqueeze(2).expand_as(g_t)
        j = self.J[:g_t.size(0), :, :context.size(1)]
        phi_t = g_t * torch.exp(-0.5 * sig_t * (mu_t_ - j) ** 2)
        alpha_t = self.COEF * torch.sum(phi_t, 1, keepdim=True)
        c_t = torch.bmm(alpha_t, context).transpose(0, 1).squeeze(0)
        return c_t, mu_t, alpha_t


class Decoder(nn.Module):
    def __init__(self, opt):
        super(Decoder, self).__init__()
        self.K = opt.K
        self.hidden_size = opt.hidden_size
        self.output_size = opt.output_size
        self.mem_size = opt.mem_size
        self.mem_feat_size = opt.output_size + opt.hidden_size
        self.mem_elem = self.mem_size * self.mem_feat_size
        self.attn = GravesAttention(opt.batch_size, self.mem_elem, self.K, opt.attention_alignment)
        self.N_o = getLinear(self.mem_elem, self.hidden_size)
        self.output = nn.Linear(self.hidden_size, self.output_size)
        self.N_u = getLinear(self.mem_elem, self.mem_feat_size)
        self.F_u = nn.Linear(self.hidden_size, self.hidden_size)
        self.F_o = nn.Linear(self.hidden_size, self.hidden_size)

    def init_buffer(self, ident, start=True):
        mem_feat_size = self.hidden_size + self.output_size
        batch_size = ident.size(0)
        if start:
            self.mu_t = ident.data.new(batch_size, self.K).zero_()
            self.S_t = ident.data.new(batch_size, mem_feat_size, self.mem_size).zero_()
            self.S_t[:, :self.hidden_size, :] = ident.unsqueeze(2).expand(ident.size(0), ident.size(1),
                                                                          self.mem_size)
        else:
            self.mu_t = self.mu_t.detach()
            self.S_t = self.S_t.detach()

    def update_buffer(self, S_tm1, c_t, o_tm1, ident):
        idt = torch.tanh(self.F_u(ident))
        o_tm1 = o_tm1.squeeze(0)
        z_t = torch.cat([c_t + idt, o_tm1 / 30], 1)
        z_t = z_t.unsqueeze(2)
        Sp = torch.cat([z_t, S_tm1[:, :, :-1]], 2)
        u = self.N_u(Sp.view(Sp.size(0), -1))
        u[:, :idt.size(1)] = u[:, :idt.size(1)] + idt
        u = u.unsqueeze(2)
        return torch.cat([u, S_tm1[:, :, :-1]], 2)

    def forward(self, x, ident, context, start=True):
        out, attns = [], []
        o_t = x[0]
        self.init_buffer(ident, start)
        for o_tm1 in torch.split(x, 1):
            if not self.training:
                o_tm1 = o_t.unsqueeze(0)
            c_t, mu_t, alpha_t = self.attn(self.S_t, context.transpose(0, 1), self.mu_t)
            self.S_t = self.update_buffer(self.S_t, c_t, o_tm1, ident)
            self.mu_t = mu_t
            ot_out = self.N_o(self.S_t.view(self.S_t.size(0), -1))
            sp_out = self.F_o(ident)
            o_t = self.output(ot_out + sp_out)
            out += [o_t]
            attns += [alpha_t.squeeze()]
        return torch.stack(out), torch.stack(attns)


class Loop(nn.Module):
    def __init__(self, opt):
        super(Loop, self).__init__()
        self.encoder = Encoder(opt)
        self.decoder = Decoder(opt)
        self.noise = opt.noise
        self.output_size = opt.output_size

    def init_input(self, tgt, start):
        if start:
            self.x_tm1 = torch.zeros(1, tgt.size(1), tgt.size(2)).type_as(tgt.data)
        if tgt.size(0) > 1:
            inp = torch.cat([self.x_tm1, tgt[:-1].data])
        else:
            inp = self.x_tm1
        if self.noise > 0:
            noise = tgt.data.new(inp.size()).normal_(0, self.noise)
            inp += noise
        if not self.training:
            inp.zero_()
        self.x_tm1 = tgt[-1].data.unsqueeze(0)
        return inp

    def forward(self, src, tgt, start=True):
        x = self.init_input(tgt, start)
        context, ident = self.encoder(src[0], src[1])
        out, attn = self.decoder(x, ident, context, start)
        return out, attn


def TBPTTIter(txt, feat, spkr, seq_len):
    full_feat, lengths = feat
    n_chunks = (full_feat.size(0) + seq_len - 1) // seq_len
    for i in range(n_chunks):
        chunk = full_feat[i * seq_len:(i + 1) * seq_len]
        chunk_len = torch.clamp(lengths - i * seq_len, 0, chunk.size(0))
        yield txt, (chunk, chunk_len), spkr, i == 0


def check_grad(params, clip_th, ignore_th):
    befgad = torch.nn.utils.clip_grad_norm_(params, clip_th)
    return (not torch.isfinite(befgad)) or (befgad > ignore_th)


def train(args, model, criterion, optimizer, epoch, train_loader, train_losses):
    total = 0
    model.train()
    for full_txt, full_feat, spkr in train_loader:
        batch_total = 0
        n_chunks = 0
        for txt, target, spkr_c, start in TBPTTIter(full_txt, full_feat, spkr, args.seq_len):
            if start:
                optimizer.zero_grad()
            output, _ = model([txt, spkr_c], target[0], start)
            loss = criterion(output, target[0], target[1])
            loss.backward()
            if check_grad(model.parameters(), args.clip_grad, args.ignore_grad):
                optimizer.zero_grad()
                continue
            optimizer.step()
            batch_total += loss.item()
            n_chunks += 1
        total += batch_total / max(n_chunks, 1)
    avg = total / len(train_loader)
    train_losses.append(avg)
    print('====> Train set loss: {:.4f}'.format(avg))


def evaluate(model, criterion, epoch, valid_loader, eval_losses):
    total = 0
    model.eval()
    with torch.no_grad():
        for txt, feat, spkr in valid_loader:
            output, _ = model([txt, spkr], feat[0])
            loss = criterion(output, feat[0], feat[1])
            total += loss.item()
    avg = total / len(valid_loader)
    eval_losses.append(avg)
    print('====> Test set loss: {:.4f}'.format(avg))
    return avg


def make_loader(args, n):
    loader = []
    for _ in range(n):
        txt = torch.randint(0, args.vocabulary_size, (6, args.batch_size))
        feat = torch.randn(8, args.batch_size, args.output_size)
        lengths = torch.tensor([8, 6])
        spkr = torch.randint(0, args.nspk, (args.batch_size, 1))
        loader.append((txt, (feat, lengths), spkr))
    return loader


def main():
    parser = argparse.ArgumentParser(description='PyTorch Loop')
    parser.add_argument('--epochs', type=int, default=2)
    parser.add_argument('--seq-len', type=int, default=4)
    parser.add_argument('--batch-size', type=int, default=2)
    parser.add_argument('--lr', type=float, default=1e-4)
    parser.add_argument('--clip-grad', type=float, default=0.5)
    parser.add_argument('--ignore-grad', type=float, default=10000.0)
    parser.add_argument('--vocabulary-size', type=int, default=44)
    parser.add_argument('--output-size', type=int, default=6)
    parser.add_argument('--hidden-size', type=int, default=14)
    parser.add_argument('--K', type=int, default=3)
    parser.add_argument('--noise', type=int, default=1)
    parser.add_argument('--attention-alignment', type=float, default=0.05)
    parser.add_argument('--nspk', type=int, default=3)
    parser.add_argument('--mem-size', type=int, default=5)
    args = parser.parse_args([])

    torch.manual_seed(1)
    model = Loop(args)
    criterion = MaskedMSE()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    train_loader, valid_loader = make_loader(args, 2), make_loader(args, 1)
    train_losses, eval_losses = [], []
    best_eval = float('inf')
    for epoch in range(1, 1 + args.epochs):
        train(args, model, criterion, optimizer, epoch, train_loader, train_losses)
        eval_loss = evaluate(model, criterion, epoch, valid_loader, eval_losses)
        best_eval = min(best_eval, eval_loss)


if __name__ == '__main__':
    main()
