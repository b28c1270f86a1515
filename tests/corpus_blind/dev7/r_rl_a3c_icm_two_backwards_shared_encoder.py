# corpus: A3C + curiosity (ICM) worker where the ICM inverse/forward models reuse the state features the policy/value forward pass computed; the A3C loss and the ICM loss are backpropagated separately without retain_graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/kimhc6028/pytorch-noreward-rl/issues/1
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class ActorCriticICM(nn.Module):
    def __init__(self, obs_dim, num_actions, feat_dim=32):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(obs_dim, feat_dim), nn.ELU(), nn.Linear(feat_dim, feat_dim), nn.ELU())
        self.lstm = nn.LSTMCell(feat_dim, feat_dim)
        self.critic_linear = nn.Linear(feat_dim, 1)
        self.actor_linear = nn.Linear(feat_dim, num_actions)
        self.inverse = nn.Sequential(nn.Linear(2 * feat_dim, feat_dim), nn.ReLU(), nn.Linear(feat_dim, num_actions))
        self.forward_model = nn.Sequential(nn.Linear(feat_dim + num_actions, feat_dim), nn.ReLU(), nn.Linear(feat_dim, feat_dim))
        self.num_actions = num_actions

    def forward(self, inputs, icm=False):
        if icm:
            phi_t, s_t1, a_t = inputs
            phi_t1 = self.encoder(s_t1)
            pred_logits = self.inverse(torch.cat([phi_t, phi_t1], 1))
            a_onehot = F.one_hot(a_t, self.num_actions).float()
            pred_phi_t1 = self.forward_model(torch.cat([phi_t, a_onehot], 1))
            return pred_logits, pred_phi_t1, phi_t1
        state, (hx, cx) = inputs
        x = self.encoder(state)
        hx, cx = self.lstm(x, (hx, cx))
        return self.critic_linear(hx), self.actor_linear(hx), (hx, cx), x


def train(args, model, optimizer):
    torch.manual_seed(args.seed)
    state = torch.randn(1, args.obs_dim)
    cx = torch.zeros(1, 32)
    hx = torch.zeros(1, 32)
    for episode in range(args.episodes):
        cx, hx = cx.detach(), hx.detach()
        values, log_probs, rewards, entropies = [], [], [], []
        inv_loss = 0
        forward_loss = 0
        for step in range(args.num_steps):
            value, logit, (hx, cx), phi_state = model((state, (hx, cx)))
            prob = F.softmax(logit, dim=-1)
            log_prob = F.log_softmax(logit, dim=-1)
            entropies.append(-(log_prob * prob).sum(1, keepdim=True))
            action = prob.multinomial(num_samples=1).detach()
            log_probs.append(log_prob.gather(1, action))
            next_state = state + 0.1 * torch.randn(1, args.obs_dim)
            pred_logits, pred_phi, phi = model((phi_state, next_state, action.view(-1)), icm=True)
            inv_loss = inv_loss + F.cross_entropy(pred_logits, action.view(-1))
            step_forward = 0.5 * (pred_phi - phi.detach()).pow(2).sum()
            forward_loss = forward_loss + step_forward
            rewards.append(args.eta * step_forward.item() + float(torch.randn(())))
            values.append(value)
            state = next_state
        R = torch.zeros(1, 1)
        values.append(R)
        policy_loss = 0
        value_loss = 0
        gae = torch.zeros(1, 1)
        for i in reversed(range(len(rewards))):
            R = args.gamma * R + rewards[i]
            advantage = R - values[i]
            value_loss = value_loss + 0.5 * advantage.pow(2)
            delta_t = rewards[i] + args.gamma * values[i + 1].detach() - values[i].detach()
            gae = gae * args.gamma * args.tau + delta_t
            policy_loss = policy_loss - log_probs[i] * gae - 0.01 * entropies[i]
        optimizer.zero_grad()
        (policy_loss + 0.5 * value_loss).backward()
        ((1 - args.beta) * inv_loss + args.beta * forward_loss).backward()  # expect: GG102
        nn.utils.clip_grad_norm_(model.parameters(), 40)
        optimizer.step()


def main():
    parser = argparse.ArgumentParser(description="A3C + ICM")
    parser.add_argument("--obs-dim", type=int, default=8)
    parser.add_argument("--num-steps", type=int, default=5)
    parser.add_argument("--episodes", type=int, default=2)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--tau", type=float, default=1.0)
    parser.add_argument("--beta", type=float, default=0.2)
    parser.add_argument("--eta", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args([])
    model = ActorCriticICM(args.obs_dim, 4)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    train(args, model, optimizer)


if __name__ == "__main__":
    main()
