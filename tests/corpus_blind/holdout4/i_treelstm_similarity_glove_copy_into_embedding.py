# corpus: Tree-LSTM sentence-similarity trainer: main() loads the pretrained word vectors with model.emb.weight.copy_(emb) outside no_grad while the embedding is trainable (freeze_embed=False), an in-place write on a leaf that requires grad
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation
# source: https://github.com/dasguptar/treelstm.pytorch/pull/26
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

PAD = 0


class Tree:
    def __init__(self, idx):
        self.idx = idx
        self.children = []
        self.state = None

    def add_child(self, child):
        self.children.append(child)
        return self


class ChildSumTreeLSTM(nn.Module):
    def __init__(self, in_dim, mem_dim):
        super().__init__()
        self.mem_dim = mem_dim
        self.ioux = nn.Linear(in_dim, 3 * mem_dim)
        self.iouh = nn.Linear(mem_dim, 3 * mem_dim)
        self.fx = nn.Linear(in_dim, mem_dim)
        self.fh = nn.Linear(mem_dim, mem_dim)

    def node_forward(self, inputs, child_c, child_h):
        child_h_sum = torch.sum(child_h, dim=0, keepdim=True)
        iou = self.ioux(inputs) + self.iouh(child_h_sum)
        i, o, u = torch.split(iou, iou.size(1) // 3, dim=1)
        i, o, u = torch.sigmoid(i), torch.sigmoid(o), torch.tanh(u)
        f = torch.sigmoid(self.fh(child_h) + self.fx(inputs).repeat(len(child_h), 1))
        fc = torch.mul(f, child_c)
        c = torch.mul(i, u) + torch.sum(fc, dim=0, keepdim=True)
        h = torch.mul(o, torch.tanh(c))
        return c, h

    def forward(self, tree, inputs):
        for child in tree.children:
            self.forward(child, inputs)
        if len(tree.children) == 0:
            child_c = inputs[0].new_zeros(1, self.mem_dim)
            child_h = inputs[0].new_zeros(1, self.mem_dim)
        else:
            child_c = torch.cat([c.state[0] for c in tree.children], dim=0)
            child_h = torch.cat([c.state[1] for c in tree.children], dim=0)
        tree.state = self.node_forward(inputs[tree.idx].unsqueeze(0), child_c, child_h)
        return tree.state


class Similarity(nn.Module):
    def __init__(self, mem_dim, hidden_dim, num_classes):
        super().__init__()
        self.wh = nn.Linear(2 * mem_dim, hidden_dim)
        self.wp = nn.Linear(hidden_dim, num_classes)

    def forward(self, lvec, rvec):
        mult_dist = torch.mul(lvec, rvec)
        abs_dist = torch.abs(lvec - rvec)
        vec_dist = torch.cat((mult_dist, abs_dist), 1)
        out = torch.sigmoid(self.wh(vec_dist))
        return F.log_softmax(self.wp(out), dim=1)


class SimilarityTreeLSTM(nn.Module):
    def __init__(self, vocab_size, in_dim, mem_dim, hidden_dim, num_classes, sparsity, freeze):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, in_dim, padding_idx=PAD, sparse=sparsity)
        if freeze:
            self.emb.weight.requires_grad = False
        self.childsumtreelstm = ChildSumTreeLSTM(in_dim, mem_dim)
        self.similarity = Similarity(mem_dim, hidden_dim, num_classes)

    def forward(self, ltree, linputs, rtree, rinputs):
        linputs = self.emb(linputs)
        rinputs = self.emb(rinputs)
        lstate, lhidden = self.childsumtreelstm(ltree, linputs)
        rstate, rhidden = self.childsumtreelstm(rtree, rinputs)
        return self.similarity(lhidden, rhidden)


@dataclass
class Args:
    input_dim: int = 8
    mem_dim: int = 12
    hidden_dim: int = 10
    num_classes: int = 5
    sparse: bool = False
    freeze_embed: bool = False
    lr: float = 0.01
    epochs: int = 2


class Trainer:
    def __init__(self, args, model, criterion, optimizer):
        self.args = args
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.epoch = 0

    def train(self, dataset):
        self.model.train()
        self.optimizer.zero_grad()
        total_loss = 0.0
        for ltree, linput, rtree, rinput, label in dataset:
            target = map_label_to_target(label, self.args.num_classes)
            output = self.model(ltree, linput, rtree, rinput)
            loss = self.criterion(output, target)
            total_loss += loss.item()
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
        self.epoch += 1
        return total_loss / len(dataset)


def map_label_to_target(label, num_classes):
    target = torch.zeros(1, num_classes)
    ceil, floor = int(torch.ceil(torch.tensor(label))), int(torch.floor(torch.tensor(label)))
    if ceil == floor:
        target[0, floor - 1] = 1
    else:
        target[0, floor - 1] = ceil - label
        target[0, ceil - 1] = label - floor
    return target


def make_pair(vocab_size, n_words):
    words = torch.randint(1, vocab_size, (n_words,))
    root = Tree(0)
    for k in range(1, n_words):
        root.add_child(Tree(k))
    return root, words


def load_word_vectors(vocab_size, dim):
    emb = torch.zeros(vocab_size, dim).normal_(0, 0.05)
    emb[PAD].zero_()
    return emb


def main():
    torch.manual_seed(0)
    args = Args()
    vocab_size = 20
    dataset = []
    for _ in range(4):
        ltree, linput = make_pair(vocab_size, 3)
        rtree, rinput = make_pair(vocab_size, 4)
        dataset.append((ltree, linput, rtree, rinput, float(torch.randint(1, 6, ()).item())))

    model = SimilarityTreeLSTM(vocab_size, args.input_dim, args.mem_dim, args.hidden_dim,
                               args.num_classes, args.sparse, args.freeze_embed)
    criterion = nn.KLDivLoss(reduction="batchmean")
    emb = load_word_vectors(vocab_size, args.input_dim)
    model.emb.weight.copy_(emb)  # expect: GG108
    optimizer = torch.optim.Adagrad(filter(lambda p: p.requires_grad, model.parameters()), lr=args.lr)
    trainer = Trainer(args, model, criterion, optimizer)
    for epoch in range(args.epochs):
        print(f"epoch {epoch}: train loss {trainer.train(dataset):.4f}")


if __name__ == "__main__":
    main()
