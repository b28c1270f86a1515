# corpus: weak-supervision generative label model; _do_estimate_label_model sums `running_loss += loss` with the graph-carrying loss tensor, so every batch's graph of the epoch is kept alive until the epoch ends (silent memory leak; running_loss has a grad_fn)
# source: https://github.com/BatsResearch/labelmodels/issues/4
import logging
import random

import numpy as np
import torch
import torch.nn as nn

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)
logging.basicConfig(level=logging.INFO, format="%(message)s")


class LearningConfig(object):
    def __init__(self):
        self.epochs = 3
        self.batch_size = 16
        self.step_size = 0.05
        self.step_schedule = None
        self.step_size_mult = None
        self.momentum = 0.9
        self.random_seed = 0


class LabelModel(nn.Module):
    def forward(self, *args):
        raise NotImplementedError

    def _do_estimate_label_model(self, batches, config):
        optimizer = torch.optim.SGD(
            self.parameters(), lr=config.step_size, momentum=config.momentum,
            weight_decay=0)
        if config.step_schedule is not None and config.step_size_mult is not None:
            scheduler = torch.optim.lr_scheduler.MultiStepLR(
                optimizer, config.step_schedule, gamma=config.step_size_mult)
        else:
            scheduler = None

        for epoch in range(config.epochs):
            logging.info('Epoch {}/{}'.format(epoch + 1, config.epochs))
            self.train()
            running_loss = 0.0
            for i_batch, inputs in enumerate(batches):
                optimizer.zero_grad()
                log_likelihood = self(*inputs)
                loss = -1 * torch.mean(log_likelihood)
                loss = loss + self._get_regularization_loss()
                loss.backward()
                optimizer.step()
                running_loss += loss  # expect: GG301
            epoch_loss = running_loss / len(batches)
            logging.info('Train Loss: %.6f (still attached: %s)', epoch_loss, epoch_loss.grad_fn is not None)
            if scheduler is not None:
                scheduler.step()

    def _get_regularization_loss(self):
        return 0.0


class NaiveBayes(LabelModel):
    """Class-conditionally independent labeling functions with abstentions."""

    def __init__(self, num_classes, num_lfs, init_acc=0.9, acc_prior=0.025):
        super().__init__()
        init_acc = -1 * np.log(1.0 / init_acc - 1) / 2
        self.accuracy = nn.Parameter(torch.full((num_lfs, num_classes), float(init_acc)))
        self.propensity = nn.Parameter(torch.zeros(num_lfs))
        self.class_balance = nn.Parameter(torch.zeros(num_classes))
        self.num_classes, self.num_lfs = num_classes, num_lfs
        self.init_acc, self.acc_prior = init_acc, acc_prior

    def forward(self, votes):
        # votes: [batch, num_lfs], 0 = abstain, 1..k = class
        class_balance = self._get_norm_class_balance()
        norm_acc = self._get_norm_accuracy()
        norm_prop = self._get_norm_propensity()
        per_class = []
        for k in range(self.num_classes):
            correct = (votes == k + 1).float()
            wrong = ((votes != 0) & (votes != k + 1)).float()
            abstain = (votes == 0).float()
            wrong_ll = torch.log((1 - norm_acc[:, k].exp()) / max(self.num_classes - 1, 1))
            lf_ll = correct * (norm_acc[:, k] + norm_prop) + wrong * (wrong_ll + norm_prop) \
                + abstain * torch.log(1 - norm_prop.exp())
            per_class.append(class_balance[k] + lf_ll.sum(dim=1))
        class_ll = torch.stack(per_class, dim=1)
        return torch.logsumexp(class_ll, dim=1)

    def _get_norm_class_balance(self):
        return self.class_balance - torch.logsumexp(self.class_balance, dim=0)

    def _get_norm_accuracy(self):
        return -torch.nn.functional.softplus(-2 * self.accuracy)

    def _get_norm_propensity(self):
        return -torch.nn.functional.softplus(-self.propensity)

    def _get_regularization_loss(self):
        return self.acc_prior * torch.norm(self.accuracy - self.init_acc)

    def estimate_label_model(self, votes, config=None):
        if config is None:
            config = LearningConfig()
        batches = [(votes[i:i + config.batch_size],) for i in range(0, votes.shape[0], config.batch_size)]
        self._do_estimate_label_model(batches, config)


def simulate_votes(n=64, num_lfs=5, num_classes=2):
    labels = torch.randint(0, num_classes, (n,))
    votes = torch.zeros(n, num_lfs, dtype=torch.long)
    for j in range(num_lfs):
        fire = torch.rand(n) < 0.7
        right = torch.rand(n) < 0.8
        vote = torch.where(right, labels, (labels + 1) % num_classes) + 1
        votes[:, j] = torch.where(fire, vote, torch.zeros_like(vote))
    return votes


def main():
    votes = simulate_votes()
    model = NaiveBayes(num_classes=2, num_lfs=5)
    model.estimate_label_model(votes)


if __name__ == "__main__":
    main()
