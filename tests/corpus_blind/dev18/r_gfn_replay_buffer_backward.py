# corpus: torchgfn-style on-policy trajectory-balance training pushes sampled trajectories (whose log_probs still carry the sampling graph) into a replay buffer and backpropagates the replayed batch, so the next iteration walks into a graph freed by the previous backward.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/GFNOrg/torchgfn/pull/87
import torch
import torch.nn as nn


class HyperGrid:
    def __init__(self, ndim=2, height=4, R0=0.1):
        self.ndim, self.height, self.R0 = ndim, height, R0
        self.n_actions = ndim + 1  # one increment per dimension + exit

    def s0(self, n):
        return torch.zeros(n, self.ndim, dtype=torch.long)

    def preprocess(self, states):
        return nn.functional.one_hot(states, self.height).float().flatten(1)

    def forward_masks(self, states):
        masks = torch.ones(states.shape[0], self.n_actions, dtype=torch.bool)
        masks[:, :-1] = states < self.height - 1
        return masks

    def log_reward(self, final_states):
        ax = (final_states.float() / (self.height - 1) - 0.5).abs()
        reward = self.R0 + 0.5 * ((ax > 0.25).all(-1)).float() + 2.0 * ((ax > 0.3) & (ax < 0.4)).all(-1).float()
        return reward.log()


class Trajectories:
    def __init__(self, log_probs=None, log_pbs=None, log_rewards=None):
        self.log_probs = log_probs if log_probs is not None else torch.zeros(0, 0)
        self.log_pbs = log_pbs if log_pbs is not None else torch.zeros(0, 0)
        self.log_rewards = log_rewards if log_rewards is not None else torch.zeros(0)

    def __len__(self):
        return self.log_rewards.shape[0]

    @staticmethod
    def _pad(t, length):
        return torch.cat([t, t.new_zeros(length - t.shape[0], t.shape[1])]) if t.shape[0] < length else t

    def extend(self, other):
        length = max(self.log_probs.shape[0], other.log_probs.shape[0])
        self.log_probs = torch.cat([self._pad(self.log_probs, length), self._pad(other.log_probs, length)], 1)
        self.log_pbs = torch.cat([self._pad(self.log_pbs, length), self._pad(other.log_pbs, length)], 1)
        self.log_rewards = torch.cat([self.log_rewards, other.log_rewards])

    def __getitem__(self, idx):
        return Trajectories(self.log_probs[:, idx], self.log_pbs[:, idx], self.log_rewards[idx])

    def sample(self, n_trajectories):
        return self[torch.randperm(len(self))[:n_trajectories]]


class TrajectoriesSampler:
    def __init__(self, env, logit_PF):
        self.env, self.logit_PF = env, logit_PF

    def sample(self, n_trajectories):
        env = self.env
        states = env.s0(n_trajectories)
        done = torch.zeros(n_trajectories, dtype=torch.bool)
        log_probs, log_pbs = [], []
        while not done.all():
            logits = self.logit_PF(env.preprocess(states))
            logits = logits.masked_fill(~env.forward_masks(states), -float('inf'))
            dist = torch.distributions.Categorical(logits=logits)
            actions = dist.sample()
            log_probs.append(torch.where(done, torch.zeros(()), dist.log_prob(actions)))
            exit_ = actions == env.n_actions - 1
            step = nn.functional.one_hot(actions.clamp(max=env.ndim - 1), env.ndim) * (~exit_ & ~done).unsqueeze(1)
            states = states + step
            n_parents = (states > 0).sum(-1).clamp(min=1).float()
            log_pbs.append(torch.where(done | exit_, torch.zeros(()), -n_parents.log()))
            done = done | exit_
        return Trajectories(torch.stack(log_probs), torch.stack(log_pbs), env.log_reward(states))


class TrajectoryBalance:
    def __init__(self, logZ, on_policy=True):
        self.logZ, self.on_policy = logZ, on_policy

    def __call__(self, trajectories):
        scores = trajectories.log_probs.sum(0) - trajectories.log_pbs.sum(0) - trajectories.log_rewards
        return (scores + self.logZ).pow(2).mean()


class ReplayBuffer:
    def __init__(self, capacity=1000):
        self.capacity = capacity
        self.training_objects = Trajectories()

    def add(self, training_objects):
        self.training_objects.extend(training_objects)
        self.training_objects = self.training_objects[-self.capacity:]

    def sample(self, n_trajectories):
        return self.training_objects.sample(n_trajectories)


def trajectories_to_training_samples(trajectories, loss_fn):
    return trajectories


def main():
    torch.manual_seed(0)
    env = HyperGrid()
    logit_PF = nn.Sequential(nn.Linear(env.ndim * env.height, 32), nn.ReLU(), nn.Linear(32, env.n_actions))
    logZ = nn.Parameter(torch.zeros(()))
    loss_fn = TrajectoryBalance(logZ)
    optimizer = torch.optim.Adam([{"params": logit_PF.parameters(), "lr": 1e-3}, {"params": [logZ], "lr": 1e-1}])
    trajectories_sampler = TrajectoriesSampler(env, logit_PF)
    replay_buffer = ReplayBuffer(capacity=64)
    for i in range(4):
        trajectories = trajectories_sampler.sample(n_trajectories=8)
        training_samples = trajectories_to_training_samples(trajectories, loss_fn)
        replay_buffer.add(training_samples)  # also: GG101
        training_objects = replay_buffer.sample(n_trajectories=8)
        optimizer.zero_grad()
        loss = loss_fn(training_objects)
        loss.backward()  # expect: GG101
        optimizer.step()
        print(i, "loss", loss.item(), "logZ", logZ.item())


if __name__ == "__main__":
    main()
