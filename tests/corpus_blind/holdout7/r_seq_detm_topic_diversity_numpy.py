# corpus: DETM (dynamic embedded topic model with an LSTM over time slices): the epoch-end topic-diversity check converts the time-varying beta of the training model to numpy while it still requires grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/adjidieng/DETM/pull/11
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class DETM(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.num_topics, self.num_times = args.num_topics, args.num_times
        self.rho = nn.Linear(args.rho_size, args.vocab_size, bias=False)
        self.mu_q_alpha = nn.Parameter(torch.randn(args.num_topics, args.num_times, args.rho_size))
        self.q_theta = nn.Sequential(nn.Linear(args.vocab_size + args.num_topics, args.t_hidden_size), nn.ReLU())
        self.mu_q_theta = nn.Linear(args.t_hidden_size, args.num_topics)
        self.q_eta_map = nn.Linear(args.vocab_size, args.eta_hidden_size)
        self.q_eta = nn.LSTM(args.eta_hidden_size, args.eta_hidden_size, batch_first=True)
        self.mu_q_eta = nn.Linear(args.eta_hidden_size + args.num_topics, args.num_topics)

    def get_alpha(self):
        return self.mu_q_alpha

    def get_eta(self, rnn_inp):
        inp = self.q_eta_map(rnn_inp).unsqueeze(0)
        output, _ = self.q_eta(inp)
        output = output.squeeze(0)
        etas = []
        prev = torch.zeros(self.num_topics)
        for t in range(self.num_times):
            prev = self.mu_q_eta(torch.cat([output[t], prev], dim=0))
            etas.append(prev)
        return torch.stack(etas)

    def get_theta(self, eta, bows, times):
        eta_td = eta[times]
        q_theta = self.q_theta(torch.cat([bows, eta_td], dim=1))
        return F.softmax(self.mu_q_theta(q_theta), dim=-1)

    def get_beta(self, alpha):
        logit = self.rho(alpha.view(alpha.size(0) * alpha.size(1), -1))
        logit = logit.view(alpha.size(0), alpha.size(1), -1)
        return F.softmax(logit, dim=-1)

    def forward(self, bows, normalized_bows, times, rnn_inp):
        alpha = self.get_alpha()
        eta = self.get_eta(rnn_inp)
        theta = self.get_theta(eta, normalized_bows, times)
        beta = self.get_beta(alpha)[:, times].permute(1, 0, 2)
        loglik = torch.bmm(theta.unsqueeze(1), beta).squeeze(1)
        nll = -(torch.log(loglik + 1e-6) * bows).sum(-1)
        return nll.mean()


def get_topic_diversity(beta, topk=5):
    num_topics = beta.shape[0]
    list_w = np.zeros((num_topics, topk))
    for k in range(num_topics):
        list_w[k, :] = beta[k].argsort()[-topk:][::-1]
    return len(np.unique(list_w)) / (topk * num_topics)


def train(model, optimizer, args, bows, times, rnn_inp):
    model.train()
    for epoch in range(args.epochs):
        optimizer.zero_grad()
        normalized = bows / bows.sum(1, keepdim=True)
        loss = model(bows, normalized, times, rnn_inp)
        loss.backward()
        optimizer.step()
        alpha = model.get_alpha()
        beta = model.get_beta(alpha).numpy()  # expect: GG110
        tds = [get_topic_diversity(beta[:, t]) for t in range(args.num_times)]
        print(f"epoch {epoch} nll {loss.item():.3f} topic diversity {np.mean(tds):.3f}")


def main():
    parser = argparse.ArgumentParser(description="DETM")
    parser.add_argument("--num_topics", type=int, default=4)
    parser.add_argument("--num_times", type=int, default=3)
    parser.add_argument("--vocab_size", type=int, default=30)
    parser.add_argument("--rho_size", type=int, default=8)
    parser.add_argument("--t_hidden_size", type=int, default=16)
    parser.add_argument("--eta_hidden_size", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    bows = torch.randint(0, 3, (12, args.vocab_size)).float() + 0.1
    times = torch.randint(0, args.num_times, (12,))
    rnn_inp = torch.rand(args.num_times, args.vocab_size)
    model = DETM(args)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    train(model, optimizer, args, bows, times, rnn_inp)


if __name__ == "__main__":
    main()
