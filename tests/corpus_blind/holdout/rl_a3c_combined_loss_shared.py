# corpus: A3C worker (single process): LSTM state zeroed on done or detached at each rollout start, GAE built from values, one combined (policy + 0.5 * value) backward, grads handed to the shared model
# source: https://github.com/ikostrikov/pytorch-a3c/issues/28
import torch
import torch.nn as nn
import torch.nn.functional as F


class ActorCritic(nn.Module):
    def __init__(self, num_inputs, num_actions, hidden=32):
        super().__init__()
        self.fc = nn.Linear(num_inputs, hidden)
        self.lstm = nn.LSTMCell(hidden, hidden)
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


class Env:
    def __init__(self, max_len=7):
        self.max_len = max_len

    def reset(self):
        self.t = 0
        return torch.randn(6)

    def step(self, action):
        self.t += 1
        return torch.randn(6), float(action == 2), self.t >= self.max_len


def train(num_updates=4, num_steps=5, gamma=0.99, gae_lambda=1.0, entropy_coef=0.01):
    torch.manual_seed(0)
    env = Env()
    shared_model = ActorCritic(6, 3)
    optimizer = torch.optim.Adam(shared_model.parameters(), lr=1e-4)
    model = ActorCritic(6, 3)
    state = env.reset()
    done = True
    hx = cx = None
    for _ in range(num_updates):
        model.load_state_dict(shared_model.state_dict())
        if done:
            cx = torch.zeros(1, 32)
            hx = torch.zeros(1, 32)
        else:
            cx = cx.detach()
            hx = hx.detach()
        values, log_probs, rewards, entropies = [], [], [], []
        for step in range(num_steps):
            value, logit, (hx, cx) = model((state.unsqueeze(0), (hx, cx)))
            prob = F.softmax(logit, dim=-1)
            log_prob = F.log_softmax(logit, dim=-1)
            entropies.append(-(log_prob * prob).sum(1, keepdim=True))
            action = prob.multinomial(num_samples=1).detach()
            log_probs.append(log_prob.gather(1, action))
            state, reward, done = env.step(action.item())
            if done:
                state = env.reset()
            values.append(value)
            rewards.append(reward)
            if done:
                break
        R = torch.zeros(1, 1)
        if not done:
            value, _, _ = model((state.unsqueeze(0), (hx, cx)))
            R = value.detach()
        values.append(R)
        policy_loss = 0
        value_loss = 0
        gae = torch.zeros(1, 1)
        for i in reversed(range(len(rewards))):
            R = gamma * R + rewards[i]
            advantage = R - values[i]
            value_loss = value_loss + 0.5 * advantage.pow(2)
            delta_t = rewards[i] + gamma * values[i + 1] - values[i]
            gae = gae * gamma * gae_lambda + delta_t
            policy_loss = policy_loss - log_probs[i] * gae.detach() - entropy_coef * entropies[i]
        optimizer.zero_grad()
        model.zero_grad()
        (policy_loss + 0.5 * value_loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 50)
        ensure_shared_grads(model, shared_model)
        optimizer.step()
    return shared_model, model


if __name__ == "__main__":
    shared_model, model = train()
    assert all(p.grad is not None for p in model.parameters())
    assert all(p.grad is not None for p in shared_model.parameters())
    assert all(sp.grad is p.grad for sp, p in zip(shared_model.parameters(), model.parameters()))
