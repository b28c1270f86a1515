# corpus: Few-shot MAML trainer reads first_order from argparse with type=bool, so "--first_order False" is truthy and the inner-loop autograd.grad runs without create_graph: the meta-gradient silently loses its second-order term.
# source: https://github.com/cnguyen10/few_shot_meta_learning/issues/6
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def parse_config(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument('--first_order', type=bool, default=True)
    parser.add_argument('--inner_lr', type=float, default=0.1)
    parser.add_argument('--num_inner_updates', type=int, default=1)
    parser.add_argument('--train_flag', type=bool, default=True)
    return vars(parser.parse_args(argv))


class Net(nn.Module):
    def __init__(self, n_in=4, hidden=16, n_way=3):
        super().__init__()
        self.fc1 = nn.Linear(n_in, hidden)
        self.fc2 = nn.Linear(hidden, n_way)


def functional_forward(x, params):
    h = torch.tanh(F.linear(x, params[0], params[1]))
    return F.linear(h, params[2], params[3])


def adapt_to_episode(x, y, hyper_net, config):
    q_params = list(hyper_net.parameters())
    for _ in range(config['num_inner_updates']):
        loss = F.cross_entropy(functional_forward(x, q_params), y)
        if config['first_order']:
            all_grads = torch.autograd.grad(outputs=loss, inputs=q_params, retain_graph=config['train_flag'])  # expect: GG202
        else:
            all_grads = torch.autograd.grad(outputs=loss, inputs=q_params, create_graph=config['train_flag'])
        q_params = [p - config['inner_lr'] * g for p, g in zip(q_params, all_grads)]
    return q_params


def make_episode(n_way=3, k_shot=4):
    x_t = torch.randn(n_way * k_shot, 4)
    y_t = torch.arange(n_way).repeat_interleave(k_shot)
    x_v = torch.randn(n_way * k_shot, 4)
    return x_t, y_t, x_v, y_t.clone()


def train(config, num_episodes=3):
    hyper_net = Net()
    meta_opt = torch.optim.Adam(hyper_net.parameters(), lr=1e-3)
    for ep in range(num_episodes):
        x_t, y_t, x_v, y_v = make_episode()
        q_params = adapt_to_episode(x_t, y_t, hyper_net, config)
        loss_v = F.cross_entropy(functional_forward(x_v, q_params), y_v)
        meta_opt.zero_grad()
        loss_v.backward()
        meta_opt.step()
        print("episode", ep, "validation loss", round(loss_v.item(), 4))
    return hyper_net


def main():
    torch.manual_seed(0)
    config = parse_config(['--first_order', 'False'])
    train(config)


if __name__ == "__main__":
    main()
