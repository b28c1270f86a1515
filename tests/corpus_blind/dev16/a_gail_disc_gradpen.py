# corpus: GAIL discriminator update adds a WGAN-style gradient penalty, but compute_grad_pen calls autograd.grad without create_graph=True, so the penalty is a constant and (gail_loss + grad_pen).backward() trains the discriminator exactly as without it.
# source: https://github.com/rohitrango/BC-regularized-GAIL/blob/32dc4b99a4224b1b34038d149e3bafe71784560e/a2c_ppo_acktr/algo/gail.py
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data
from torch import autograd


class RunningMeanStd:
    def __init__(self, shape=()):
        self.mean = np.zeros(shape, "float64")
        self.var = np.ones(shape, "float64")
        self.count = 1e-4

    def update(self, x):
        batch_mean, batch_var, batch_count = np.mean(x, axis=0), np.var(x, axis=0), x.shape[0]
        delta = batch_mean - self.mean
        tot = self.count + batch_count
        self.mean = self.mean + delta * batch_count / tot
        m2 = self.var * self.count + batch_var * batch_count + delta ** 2 * self.count * batch_count / tot
        self.var = m2 / tot
        self.count = tot


class Discriminator(nn.Module):
    def __init__(self, input_dim, hidden_dim, device):
        super().__init__()
        self.device = device
        self.trunk = nn.Sequential(
            nn.Linear(input_dim, hidden_dim), nn.Tanh(),
            nn.Linear(hidden_dim, hidden_dim), nn.Tanh(),
            nn.Linear(hidden_dim, 1)).to(device)
        self.trunk.train()
        self.optimizer = torch.optim.Adam(self.trunk.parameters())
        self.returns = None
        self.ret_rms = RunningMeanStd(shape=())

    def compute_grad_pen(self, expert_state, expert_action, policy_state, policy_action, lambda_=10):
        alpha = torch.rand(expert_state.size(0), 1)
        expert_data = torch.cat([expert_state, expert_action], dim=1)
        policy_data = torch.cat([policy_state, policy_action], dim=1)
        alpha = alpha.expand_as(expert_data).to(expert_data.device)
        mixup_data = alpha * expert_data + (1 - alpha) * policy_data
        mixup_data.requires_grad = True

        disc = self.trunk(mixup_data)
        ones = torch.ones(disc.size()).to(disc.device)
        grad = autograd.grad(  # expect: GG202
            outputs=disc,
            inputs=mixup_data,
            grad_outputs=ones,
            retain_graph=True,
            only_inputs=True)[0]

        grad_pen = lambda_ * (grad.norm(2, dim=1) - 1).pow(2).mean()
        return grad_pen

    def update(self, expert_loader, rollouts, obsfilt=None):
        self.train()
        if obsfilt is None:
            obsfilt = lambda x, update: x
        policy_data_generator = rollouts.feed_forward_generator(None, mini_batch_size=expert_loader.batch_size)
        loss = 0
        n = 0
        for expert_batch, policy_batch in zip(expert_loader, policy_data_generator):
            policy_state, policy_action = policy_batch[0], policy_batch[2]
            policy_d = self.trunk(torch.cat([policy_state, policy_action], dim=1))

            expert_state, expert_action = expert_batch
            expert_state = obsfilt(expert_state.numpy(), update=False)
            expert_state = torch.FloatTensor(expert_state).to(self.device)
            expert_action = expert_action.to(self.device)
            expert_d = self.trunk(torch.cat([expert_state, expert_action], dim=1))

            expert_loss = F.binary_cross_entropy_with_logits(expert_d, torch.ones(expert_d.size()).to(self.device))
            policy_loss = F.binary_cross_entropy_with_logits(policy_d, torch.zeros(policy_d.size()).to(self.device))

            gail_loss = expert_loss + policy_loss
            grad_pen = self.compute_grad_pen(expert_state, expert_action, policy_state, policy_action)

            loss += (gail_loss + grad_pen).item()
            n += 1

            self.optimizer.zero_grad()
            (gail_loss + grad_pen).backward()  # also: GG202
            self.optimizer.step()
        return loss / n

    def predict_reward(self, state, action, gamma, masks, update_rms=True):
        with torch.no_grad():
            self.eval()
            d = self.trunk(torch.cat([state, action], dim=1))
            s = torch.sigmoid(d)
            reward = -(1 - s).log()
            if self.returns is None:
                self.returns = reward.clone()
            if update_rms:
                self.returns = self.returns * masks * gamma + reward
                self.ret_rms.update(self.returns.cpu().numpy())
            return reward / np.sqrt(self.ret_rms.var[0] + 1e-8)


class RolloutStorage:
    def __init__(self, num_steps, obs_dim, act_dim):
        self.obs = torch.randn(num_steps, obs_dim)
        self.recurrent_hidden_states = torch.zeros(num_steps, 1)
        self.actions = torch.randn(num_steps, act_dim)
        self.masks = torch.ones(num_steps, 1)
        self.num_steps = num_steps

    def feed_forward_generator(self, advantages, mini_batch_size):
        perm = torch.randperm(self.num_steps)
        for start in range(0, self.num_steps, mini_batch_size):
            idx = perm[start:start + mini_batch_size]
            yield (self.obs[idx], self.recurrent_hidden_states[idx], self.actions[idx], self.masks[idx])


def make_expert_loader(obs_dim, act_dim, n=64, batch_size=16):
    states = torch.randn(n, obs_dim) + 1.0
    actions = torch.randn(n, act_dim) * 0.5
    dataset = torch.utils.data.TensorDataset(states, actions)
    return torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=True, drop_last=True)


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    obs_dim, act_dim = 4, 2
    discr = Discriminator(obs_dim + act_dim, 32, torch.device("cpu"))
    expert_loader = make_expert_loader(obs_dim, act_dim)
    for epoch in range(3):
        rollouts = RolloutStorage(64, obs_dim, act_dim)
        d_loss = discr.update(expert_loader, rollouts)
        rewards = discr.predict_reward(rollouts.obs, rollouts.actions, 0.99, rollouts.masks)
        print(f"epoch {epoch} disc loss {d_loss:.4f} mean reward {rewards.mean().item():.4f}")


if __name__ == "__main__":
    main()
