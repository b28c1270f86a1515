# corpus: JOUST-style Fisher computation for the user-simulator/dialogue-manager agents carries the dialogue RNN state from turn to turn and calls update_loss.backward(retain_graph=True), which only hides that every turn backpropagates again through all earlier turns.
# source: https://github.com/andy194673/joust/issues/4
import torch
import torch.nn as nn
import torch.nn.functional as F


class Agent(nn.Module):
    """One side of the dialogue (user simulator or system)."""

    def __init__(self, vocab, act_vocab, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.ctx = nn.Linear(2 * hidden, hidden)
        self.word_out = nn.Linear(hidden, vocab)
        self.act_out = nn.Linear(hidden, act_vocab)

    def forward(self, word_idx, dial_state):
        h = torch.tanh(self.ctx(torch.cat([self.embed(word_idx).mean(1), dial_state], -1)))
        return self.word_out(h), self.act_out(h), h


class DialogueModel(nn.Module):
    def __init__(self, vocab=20, act_vocab=6, hidden=16, lr=1e-3):
        super().__init__()
        self.usr = Agent(vocab, act_vocab, hidden)
        self.sys = Agent(vocab, act_vocab, hidden)
        self.dial_rnn = nn.GRUCell(2 * hidden, hidden)
        self.hidden = hidden
        self.optimizer = torch.optim.Adam(self.parameters(), lr=lr)
        self.logits = {}

    def forward(self, batch, turn_idx, mode='teacher_force'):
        init = batch['init_dial_rnn']
        if init is None:
            init = torch.zeros(batch['word_idx']['in_usr'].size(0), self.hidden)
        self.logits['word_usr'], self.logits['act_usr'], h_usr = self.usr(batch['word_idx']['in_usr'], init)
        self.logits['word_sys'], self.logits['act_sys'], h_sys = self.sys(batch['word_idx']['in_sys'], h_usr)
        dial_state = self.dial_rnn(torch.cat([h_usr, h_sys], -1), init)
        return {'init_dial_rnn': dial_state}

    def get_loss(self, batch):
        loss = {}
        loss_word_usr = F.cross_entropy(self.logits['word_usr'], batch['word_idx']['out_usr'])
        loss_word_sys = F.cross_entropy(self.logits['word_sys'], batch['word_idx']['out_sys'])
        loss_act_usr = F.cross_entropy(self.logits['act_usr'], batch['act_idx']['usr'])
        loss_act_sys = F.cross_entropy(self.logits['act_sys'], batch['act_idx']['sys'])
        loss['word_usr'], loss['word_sys'] = loss_word_usr.item(), loss_word_sys.item()
        loss['act_usr'], loss['act_sys'] = loss_act_usr.item(), loss_act_sys.item()
        update_loss = loss_word_usr + loss_word_sys + loss_act_usr + loss_act_sys
        return loss, update_loss


class DataLoader:
    def __init__(self, n_dialogues=3, n_turns=4, batch_size=2, vocab=20, act_vocab=6, seq_len=5):
        self.dialogues = []
        for _ in range(n_dialogues):
            turns = []
            for _ in range(n_turns):
                turns.append({
                    'init_dial_rnn': None,
                    'word_idx': {'in_usr': torch.randint(vocab, (batch_size, seq_len)),
                                 'in_sys': torch.randint(vocab, (batch_size, seq_len)),
                                 'out_usr': torch.randint(vocab, (batch_size,)),
                                 'out_sys': torch.randint(vocab, (batch_size,))},
                    'act_idx': {'usr': torch.randint(act_vocab, (batch_size,)),
                                'sys': torch.randint(act_vocab, (batch_size,))},
                })
            self.dialogues.append(turns)
        self.pos = 0

    def next_batch_list(self, split):
        if self.pos >= len(self.dialogues):
            return None
        self.pos += 1
        return self.dialogues[self.pos - 1]


def compute_fisher(model, src_dataset):
    print('Computing Fisher Matrix')
    model.train()
    fisher, optpar = {}, {}
    for n, p in model.named_parameters():
        optpar[n] = p.detach().clone()
        fisher[n] = torch.zeros_like(p)
    n_examples = 0
    while True:
        batch_list = src_dataset.next_batch_list('train')
        if batch_list is None:
            break
        for turn_idx, batch in enumerate(batch_list):
            n_examples += 1
            if turn_idx != 0:
                batch['init_dial_rnn'] = decode_batch['init_dial_rnn']  # also: GG302
            decode_batch = model(batch, turn_idx=turn_idx, mode='teacher_force')
            loss, update_loss = model.get_loss(batch)
            update_loss.backward(retain_graph=True)  # expect: GG302
            for n, p in model.named_parameters():
                if p.grad is not None:
                    fisher[n].data += p.grad.data ** 2
            model.optimizer.zero_grad()
    for name in fisher:
        fisher[name] /= n_examples
    print('Done collect {} examples in fisher matrix'.format(n_examples))
    return fisher, optpar


def main():
    torch.manual_seed(0)
    model = DialogueModel()
    fisher, optpar = compute_fisher(model, DataLoader())
    for name in ['usr.ctx.weight', 'sys.act_out.weight', 'dial_rnn.weight_hh']:
        print(name, float(fisher[name].sum()))


if __name__ == "__main__":
    main()
