# corpus: ENAS Trainer.train_shared adds an activation-regularization penalty that is not reduced to the language-model loss, so loss.backward() runs on a per-element tensor
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/carpedm20/ENAS-pytorch/issues/58
import argparse
import collections

import torch
import torch.nn as nn
import torch.nn.functional as F

Node = collections.namedtuple("Node", ["id", "name"])


class RNN(nn.Module):
    """Shared RNN whose cell wiring is chosen by a sampled dag."""

    def __init__(self, args, ntokens):
        super().__init__()
        self.args = args
        self.encoder = nn.Embedding(ntokens, args.shared_embed)
        self.w_xc = nn.Linear(args.shared_embed, args.shared_hid)
        self.w_hc = nn.Linear(args.shared_hid, args.shared_hid, bias=False)
        self.w_h = nn.ModuleList([nn.Linear(args.shared_hid, args.shared_hid, bias=False) for _ in range(args.num_blocks)])
        self.decoder = nn.Linear(args.shared_hid, ntokens)

    def cell(self, x, h_prev, dag):
        h = torch.tanh(self.w_xc(x) + self.w_hc(h_prev))
        outs = [h]
        for node in dag:
            f = {"tanh": torch.tanh, "relu": F.relu, "sigmoid": torch.sigmoid}[node.name]
            outs.append(f(self.w_h[node.id](outs[-1])))
        return torch.stack(outs[1:]).mean(0)

    def forward(self, inputs, dag, hidden):
        embed = self.encoder(inputs)
        outputs = []
        for step in range(embed.size(0)):
            hidden = self.cell(embed[step], hidden, dag)
            outputs.append(hidden)
        output = torch.stack(outputs)
        dropped = F.dropout(output, p=0.2, training=self.training)
        return self.decoder(dropped), hidden, {"dropped": dropped, "hiddens": output}

    def init_hidden(self, batch_size):
        return torch.zeros(batch_size, self.args.shared_hid)


def _apply_penalties(extra_out, args):
    penalty_loss = 0
    dropped = extra_out["dropped"]
    if args.activation_regularization:
        penalty_loss += args.activation_regularization_amount * dropped.pow(2)
    return penalty_loss


class Trainer:
    def __init__(self, args, train_data, ntokens):
        self.args = args
        self.train_data = train_data
        self.ntokens = ntokens
        self.shared = RNN(args, ntokens)
        self.shared_optim = torch.optim.SGD(self.shared.parameters(), lr=args.shared_lr)
        self.ce = nn.CrossEntropyLoss()

    def sample_dag(self):
        names = ["tanh", "relu", "sigmoid"]
        return [Node(i, names[int(torch.randint(0, 3, ()))]) for i in range(self.args.num_blocks)]

    def get_loss(self, inputs, targets, hidden, dag):
        output, hidden, extra_out = self.shared(inputs, dag, hidden)
        loss = self.ce(output.view(-1, self.ntokens), targets.view(-1))
        return loss, hidden, extra_out

    def train_shared(self):
        self.shared.train()
        hidden = self.shared.init_hidden(self.args.batch_size)
        raw_total_loss = 0
        for step in range(0, self.train_data.size(0) - 1 - self.args.shared_rnn_max_length, self.args.shared_rnn_max_length):
            inputs = self.train_data[step:step + self.args.shared_rnn_max_length]
            targets = self.train_data[step + 1:step + 1 + self.args.shared_rnn_max_length]
            dag = self.sample_dag()
            loss, hidden, extra_out = self.get_loss(inputs, targets, hidden, dag)
            hidden = hidden.detach()
            raw_total_loss += loss.item()
            loss = loss + _apply_penalties(extra_out, self.args)
            self.shared_optim.zero_grad()
            loss.backward()  # expect: GG109
            nn.utils.clip_grad_norm_(self.shared.parameters(), self.args.shared_grad_clip)
            self.shared_optim.step()
        return raw_total_loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared_embed", type=int, default=16)
    parser.add_argument("--shared_hid", type=int, default=16)
    parser.add_argument("--num_blocks", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--shared_lr", type=float, default=20.0)
    parser.add_argument("--shared_grad_clip", type=float, default=0.25)
    parser.add_argument("--shared_rnn_max_length", type=int, default=5)
    parser.add_argument("--activation_regularization", type=bool, default=True)
    parser.add_argument("--activation_regularization_amount", type=float, default=2e-6)
    args = parser.parse_args([])
    torch.manual_seed(0)
    ntokens = 40
    train_data = torch.randint(0, ntokens, (21, args.batch_size))
    Trainer(args, train_data, ntokens).train_shared()


if __name__ == "__main__":
    main()
