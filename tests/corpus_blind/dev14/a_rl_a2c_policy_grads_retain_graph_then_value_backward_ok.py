# corpus: A2C trainer (Deep-RL Hands-On 02_pong_a2c shape) that backpropagates the policy loss with retain_graph=True only to collect policy-gradient statistics, then backpropagates entropy + value loss through the same forward once, and steps once; the advantage uses (vals_ref_v - value_v).detach() with the bootstrap values computed under no_grad; correct
# source: https://github.com/PacktPublishing/Deep-Reinforcement-Learning-Hands-On-Second-Edition/issues/60
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

GAMMA, REWARD_STEPS, ENTROPY_BETA, CLIP_GRAD = 0.99, 4, 0.01, 0.1
ExperienceFirstLast = namedtuple("ExperienceFirstLast", ["state", "action", "reward", "last_state"])


class AtariA2C(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 64), nn.ReLU())
        self.policy = nn.Linear(64, n_actions)
        self.value = nn.Linear(64, 1)

    def forward(self, x):
        h = self.body(x)
        return self.policy(h), self.value(h)


def unpack_batch(batch, net):
    states, actions, rewards, not_done_idx, last_states = [], [], [], [], []
    for idx, exp in enumerate(batch):
        states.append(exp.state)
        actions.append(exp.action)
        rewards.append(exp.reward)
        if exp.last_state is not None:
            not_done_idx.append(idx)
            last_states.append(exp.last_state)
    states_v = torch.tensor(np.array(states))
    actions_t = torch.tensor(actions)
    rewards_np = np.array(rewards, dtype=np.float32)
    if not_done_idx:
        with torch.no_grad():
            last_vals_v = net(torch.tensor(np.array(last_states)))[1]
        rewards_np[not_done_idx] += GAMMA ** REWARD_STEPS * last_vals_v.squeeze(-1).numpy()
    return states_v, actions_t, torch.tensor(rewards_np)


def train_batch(net, optimizer, batch):
    states_v, actions_t, vals_ref_v = unpack_batch(batch, net)
    optimizer.zero_grad()
    logits_v, value_v = net(states_v)
    loss_value_v = F.mse_loss(value_v.squeeze(-1), vals_ref_v)

    log_prob_v = F.log_softmax(logits_v, dim=1)
    adv_v = (vals_ref_v - value_v.squeeze(-1)).detach()
    log_prob_actions_v = adv_v * log_prob_v[range(len(batch)), actions_t]
    loss_policy_v = -log_prob_actions_v.mean()

    prob_v = F.softmax(logits_v, dim=1)
    entropy_loss_v = ENTROPY_BETA * (prob_v * log_prob_v).sum(dim=1).mean()

    loss_policy_v.backward(retain_graph=True)
    grads = np.concatenate([p.grad.data.cpu().numpy().flatten() for p in net.parameters() if p.grad is not None])

    loss_v = entropy_loss_v + loss_value_v
    loss_v.backward()
    nn.utils.clip_grad_norm_(net.parameters(), CLIP_GRAD)
    optimizer.step()
    return {"loss_total": (loss_v + loss_policy_v).item(), "grad_l2": float(np.sqrt(np.mean(np.square(grads)))),
            "grad_max": float(np.max(np.abs(grads)))}


def experience_source(obs_dim, n_actions, batch_size):
    batch = []
    for i in range(batch_size):
        state = np.random.randn(obs_dim).astype(np.float32)
        last = None if i % 5 == 4 else np.random.randn(obs_dim).astype(np.float32)
        batch.append(ExperienceFirstLast(state, int(np.random.randint(n_actions)), float(np.random.rand()), last))
    return batch


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    net = AtariA2C(8, 3)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3, eps=1e-3)
    for step in range(3):
        print(step, train_batch(net, optimizer, experience_source(8, 3, 16)))


if __name__ == "__main__":
    main()
