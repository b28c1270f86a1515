# corpus: UIS-RNN-style speaker-diarization GRU trainer done right: the trainable initial hidden state is zero-initialised once under torch.no_grad() (paper's h0 = 0) and stays learnable, and sigma2 is clamped through .data only after optimizer.step(), when no graph holds it; correct
# source: https://github.com/google/uis-rnn/issues/87
import argparse
import random

import numpy as np
import torch
import torch.nn as nn


def weighted_mse_loss(input_tensor, target_tensor, weight=1):
    observation_dim = input_tensor.size()[-1]
    streched_tensor = ((input_tensor - target_tensor) ** 2).view(-1, observation_dim)
    entry_num = float(streched_tensor.size()[0])
    non_zero_entry_num = torch.sum(streched_tensor[:, 0] != 0).float()
    weighted_tensor = torch.mm(streched_tensor, torch.diag(weight.float().view(-1)))
    return torch.mean(weighted_tensor) * weight.nelement() * entry_num / non_zero_entry_num


def sigma2_prior_loss(num_non_zero, sigma_alpha, sigma_beta, sigma2):
    return ((2 * sigma_alpha + num_non_zero + 2) / (2 * num_non_zero) * torch.log(sigma2)).sum() + \
        (sigma_beta / (sigma2 * num_non_zero)).sum()


def regularization_loss(params, weight):
    l2_reg = 0
    for param in params:
        l2_reg += torch.norm(param)
    return weight * l2_reg


class CoreRNN(nn.Module):
    def __init__(self, input_dim, hidden_size, depth, observation_dim, dropout=0):
        super().__init__()
        self.hidden_size = hidden_size
        self.gru = nn.GRU(input_dim, hidden_size, depth, dropout=dropout)
        self.linear_mean1 = nn.Linear(hidden_size, hidden_size)
        self.linear_mean2 = nn.Linear(hidden_size, observation_dim)

    def forward(self, input_seq, hidden=None):
        output_seq, hidden = self.gru(input_seq, hidden)
        mean = self.linear_mean2(torch.relu(self.linear_mean1(output_seq)))
        return mean, hidden


class UISRNN:
    def __init__(self, args):
        self.observation_dim = args.observation_dim
        self.rnn_model = CoreRNN(self.observation_dim, args.rnn_hidden_size, args.rnn_depth, self.observation_dim)
        self.rnn_init_hidden = nn.Parameter(torch.randn(args.rnn_depth, 1, args.rnn_hidden_size) * 0.1)
        self.estimate_sigma2 = True
        self.sigma2 = nn.Parameter(args.sigma2 * torch.ones(self.observation_dim))
        self.transition_bias = args.transition_bias
        self.crp_alpha = args.crp_alpha

    def _get_optimizer(self, args):
        params = [{"params": self.rnn_model.parameters()}, {"params": self.rnn_init_hidden}]
        if self.estimate_sigma2:
            params.append({"params": self.sigma2})
        return torch.optim.Adam(params, lr=args.learning_rate)

    def fit(self, train_sequences, args):
        self.rnn_model.train()
        optimizer = self._get_optimizer(args)
        seq_len, batch_size, _ = train_sequences.shape
        train_loss = []
        # paper: "we assume x0 = 0 and h0 = 0 ... all GRU instances are initialized with the same zero state"
        with torch.no_grad():
            self.rnn_init_hidden.zero_()
        for num_iter in range(args.train_iteration):
            optimizer.zero_grad()
            hidden = self.rnn_init_hidden.repeat(1, batch_size, 1)
            mean, _ = self.rnn_model(train_sequences[:-1], hidden)
            mean = torch.cumsum(mean, dim=0)
            mean_size = mean.size()
            mean = torch.mm(torch.diag(1.0 / torch.arange(1, mean_size[0] + 1).float()),
                            mean.view(mean_size[0], -1)).view(mean_size)
            rnn_truth = train_sequences[1:]
            loss1 = weighted_mse_loss(input_tensor=mean, target_tensor=rnn_truth, weight=1 / (2 * self.sigma2))
            weight = ((rnn_truth != 0).float() * mean - rnn_truth) ** 2
            num_non_zero = torch.sum((weight.view(-1, self.observation_dim) != 0).float(), dim=0).squeeze()
            loss2 = sigma2_prior_loss(num_non_zero, args.sigma_alpha, args.sigma_beta, self.sigma2)
            loss3 = regularization_loss(self.rnn_model.parameters(), args.regularization_weight)
            loss = loss1 + loss2 + loss3
            loss.backward()
            nn.utils.clip_grad_norm_(self.rnn_model.parameters(), args.grad_max_norm)
            optimizer.step()
            self.sigma2.data.clamp_(min=1e-6)
            train_loss.append(float(loss1.data))
            print(f"Iter: {num_iter}  Training Loss: {float(loss.data):.4f}  sigma2: {self.sigma2.data.mean().item():.4f}")
        return train_loss


def parse_arguments():
    parser = argparse.ArgumentParser()
    parser.add_argument("--observation_dim", default=4, type=int)
    parser.add_argument("--rnn_hidden_size", default=16, type=int)
    parser.add_argument("--rnn_depth", default=1, type=int)
    parser.add_argument("--sigma2", default=0.1, type=float)
    parser.add_argument("--transition_bias", default=0.5, type=float)
    parser.add_argument("--crp_alpha", default=1.0, type=float)
    parser.add_argument("--learning_rate", default=1e-3, type=float)
    parser.add_argument("--train_iteration", default=2, type=int)
    parser.add_argument("--sigma_alpha", default=1.0, type=float)
    parser.add_argument("--sigma_beta", default=1.0, type=float)
    parser.add_argument("--regularization_weight", default=1e-5, type=float)
    parser.add_argument("--grad_max_norm", default=5.0, type=float)
    return parser.parse_args([])


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    args = parse_arguments()
    train_sequences = torch.randn(10, 3, args.observation_dim)
    model = UISRNN(args)
    model.fit(train_sequences, args)


if __name__ == "__main__":
    main()
