# corpus: A3C worker (pytorch-a3c train.py) with an LSTMCell actor-critic: hx/cx are re-created on episode end and detached at the start of every num_steps rollout, losses summed over the rollout before one backward (correct)
# source: https://github.com/ikostrikov/pytorch-a3c/issues/76
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ActorCritic(nn.Module):
    def __init__(self, num_inputs=6, num_actions=3, hidden=16):
        super().__init__()
        self.fc = nn.Linear(num_inputs, 32)
        self.lstm = nn.LSTMCell(32, hidden)
        self.critic_linear = nn.Linear(hidden, 1)
        self.actor_linear = nn.Linear(hidden, num_actions)

    def forward(self, inputs):
        inputs, (hx, cx) = inputs
        x = F.elu(self.fc(inputs))
        hx, cx = self.lstm(x, (hx, cx))
        return self.critic_linear(hx), self.actor_linear(hx), (hx, cx)


def ensure_shared_grads(model, shared_model):
    for param, shared_param in zip(model.parameters(), shared_model.parameters()):
        if shared_param.grad is not None:
            return
        shared_param._grad = param.grad


def train(shared_model, optimizer, num_updates=6, num_steps=5, gamma=0.99, gae_lambda=1.0, max_episode_length=12):
    model = ActorCritic()
    state = torch.randn(6)
    done, episode_length = True, 0
    for num_iter in range(num_updates):
        model.load_state_dict(shared_model.state_dict())
        if done:
            cx, hx = torch.zeros(1, 16), torch.zeros(1, 16)
        else:
            cx, hx = cx.detach(), hx.detach()
        values, log_probs, rewards, entropies = [], [], [], []
        for step in range(num_steps):
            episode_length += 1
            value, logit, (hx, cx) = model((state.unsqueeze(0), (hx, cx)))
            prob, log_prob = F.softmax(logit, dim=-1), F.log_softmax(logit, dim=-1)
            entropies.append(-(log_prob * prob).sum(1, keepdim=True))
            action = prob.multinomial(num_samples=1).detach()
            log_prob = log_prob.gather(1, action)
            state, reward = torch.randn(6), float(np.clip(np.random.randn(), -1, 1))
            done = episode_length >= max_episode_length
            if done:
                episode_length = 0
            values.append(value)
            log_probs.append(log_prob)
            rewards.append(reward)
            if done:
                break
        R = torch.zeros(1, 1)
        if not done:
            value, _, _ = model((state.unsqueeze(0), (hx, cx)))
            R = value.detach()
        values.append(R)
        policy_loss, value_loss, gae = 0, 0, torch.zeros(1, 1)
        for i in reversed(range(len(rewards))):
            R = gamma * R + rewards[i]
            advantage = R - values[i]
            value_loss = value_loss + 0.5 * advantage.pow(2)
            delta_t = rewards[i] + gamma * values[i + 1] - values[i]
            gae = gae * gamma * gae_lambda + delta_t
            policy_loss = policy_loss - log_probs[i] * gae.detach() - 0.01 * entropies[i]
        optimizer.zero_grad()
        model.zero_grad()
        (policy_loss + 0.5 * value_loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 50)
        ensure_shared_grads(model, shared_model)
        optimizer.step()
        print(f"update {num_iter}: policy_loss={policy_loss.item():.3f} value_loss={value_loss.item():.3f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    np.random.seed(0)
    shared_model = ActorCritic()
    optimizer = torch.optim.Adam(shared_model.parameters(), lr=1e-3)
    train(shared_model, optimizer)
