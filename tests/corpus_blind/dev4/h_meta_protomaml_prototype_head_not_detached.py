# corpus: first-order ProtoMAML: adapt_few_shot computes class prototypes with the meta model before the inner loop and uses 2*prototypes / -|prototypes|^2 directly as the output layer of every inner step, so each inner loss.backward() also walks the prototype graph, which the first inner step already freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/facebookresearch/higher/issues/70
from copy import deepcopy
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


@dataclass
class HParams:
    lr: float = 1e-3
    lr_inner: float = 0.1
    lr_output: float = 0.1
    num_inner_steps: int = 3
    feature_dim: int = 8


def get_convnet(in_dim, output_size):
    return nn.Sequential(nn.Linear(in_dim, 16), nn.ReLU(), nn.Linear(16, output_size))


class ProtoMAML(nn.Module):
    def __init__(self, in_dim, hparams: HParams):
        super().__init__()
        self.hparams = hparams
        self.model = get_convnet(in_dim, hparams.feature_dim)
        self.optimizer = optim.AdamW(self.model.parameters(), lr=hparams.lr)

    @staticmethod
    def calculate_prototypes(features, targets):
        classes, _ = torch.unique(targets).sort()
        prototypes = []
        for c in classes:
            p = features[torch.where(targets == c)[0]].mean(dim=0)
            prototypes.append(p)
        prototypes = torch.stack(prototypes, dim=0)
        return prototypes, classes

    def run_model(self, local_model, output_weight, output_bias, imgs, labels):
        feats = local_model(imgs)
        preds = F.linear(feats, output_weight, output_bias)
        loss = F.cross_entropy(preds, labels)
        acc = (preds.argmax(dim=1) == labels).float()
        return loss, preds, acc

    def adapt_few_shot(self, support_imgs, support_targets):
        # Determine prototype initialization
        support_feats = self.model(support_imgs)
        prototypes, classes = self.calculate_prototypes(support_feats, support_targets)
        support_labels = (classes[None, :] == support_targets[:, None]).long().argmax(dim=-1)
        # Create inner-loop model and optimizer
        local_model = deepcopy(self.model)
        local_model.train()
        local_optim = optim.SGD(local_model.parameters(), lr=self.hparams.lr_inner)
        local_optim.zero_grad()
        # Create output layer weights with prototype-based initialization
        init_weight = 2 * prototypes
        init_bias = -torch.norm(prototypes, dim=1) ** 2
        output_weight = init_weight  # expect: GG103
        output_bias = init_bias  # also: GG103

        # Optimize inner loop model on support set
        for _ in range(self.hparams.num_inner_steps):
            loss, _, _ = self.run_model(local_model, output_weight, output_bias, support_imgs, support_labels)
            loss.backward()  # also: GG103
            local_optim.step()
            local_optim.zero_grad()

        return local_model, output_weight, output_bias, classes

    def outer_loop(self, batch, mode="train"):
        accuracies, losses = [], []
        self.model.zero_grad()
        for task_batch in batch:
            support_imgs, support_targets, query_imgs, query_targets = task_batch
            local_model, output_weight, output_bias, classes = self.adapt_few_shot(support_imgs, support_targets)
            query_labels = (classes[None, :] == query_targets[:, None]).long().argmax(dim=-1)
            loss, preds, acc = self.run_model(local_model, output_weight, output_bias, query_imgs, query_labels)
            if mode == "train":
                loss.backward()
                for p_global, p_local in zip(self.model.parameters(), local_model.parameters()):
                    p_global.grad += p_local.grad  # First-order approx. -> add gradients of finetuned and base model
            accuracies.append(acc.mean().detach())
            losses.append(loss.detach())
        if mode == "train":
            self.optimizer.step()
            self.optimizer.zero_grad()
        return {"loss": sum(losses).item() / len(losses), "acc": sum(accuracies).item() / len(accuracies)}


def sample_task(n_way=3, k_shot=2, n_query=2, in_dim=6):
    centers = torch.randn(n_way, in_dim) * 2
    s_t = torch.arange(n_way).repeat_interleave(k_shot)
    q_t = torch.arange(n_way).repeat_interleave(n_query)
    return centers[s_t] + torch.randn(len(s_t), in_dim), s_t, centers[q_t] + torch.randn(len(q_t), in_dim), q_t


def main():
    torch.manual_seed(0)
    learner = ProtoMAML(in_dim=6, hparams=HParams())
    for step in range(3):
        batch = [sample_task() for _ in range(2)]
        print(step, learner.outer_loop(batch, mode="train"))


if __name__ == "__main__":
    main()
