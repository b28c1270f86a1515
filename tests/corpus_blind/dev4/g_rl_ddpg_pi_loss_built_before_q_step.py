# corpus: DDPG update (Spinning-Up port); one forward of the actor-critic gives both q and q_pi, the Q optimizer steps, then pi_loss (built before the step through the critic) is backpropagated into critic weights the step changed in place
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/kashif/firedup/issues/11
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, layers, activation=torch.relu, output_activation=None):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(i, o) for i, o in zip(layers[:-1], layers[1:])])
        self.activation = activation
        self.output_activation = output_activation

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = self.activation(layer(x))
        x = self.layers[-1](x)
        return x if self.output_activation is None else self.output_activation(x)


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=(32, 32), act_limit=1.0):
        super().__init__()
        self.act_limit = act_limit
        self.policy = MLP([obs_dim, *hidden, act_dim], output_activation=torch.tanh)
        self.q = MLP([obs_dim + act_dim, *hidden, 1])

    def forward(self, x, a):
        pi = self.act_limit * self.policy(x)
        q = self.q(torch.cat((x, a), dim=1)).squeeze(1)
        q_pi = self.q(torch.cat((x, pi), dim=1)).squeeze(1)
        return pi, q, q_pi


class ReplayBuffer:
    def __init__(self, obs_dim, act_dim, size):
        self.obs1_buf = np.zeros([size, obs_dim], dtype=np.float32)
        self.obs2_buf = np.zeros([size, obs_dim], dtype=np.float32)
        self.acts_buf = np.zeros([size, act_dim], dtype=np.float32)
        self.rews_buf = np.zeros(size, dtype=np.float32)
        self.done_buf = np.zeros(size, dtype=np.float32)
        self.ptr, self.size, self.max_size = 0, 0, size

    def store(self, obs, act, rew, next_obs, done):
        self.obs1_buf[self.ptr] = obs
        self.obs2_buf[self.ptr] = next_obs
        self.acts_buf[self.ptr] = act
        self.rews_buf[self.ptr] = rew
        self.done_buf[self.ptr] = done
        self.ptr = (self.ptr + 1) % self.max_size
        self.size = min(self.size + 1, self.max_size)

    def sample_batch(self, batch_size):
        idxs = np.random.randint(0, self.size, size=batch_size)
        return dict(obs1=self.obs1_buf[idxs], obs2=self.obs2_buf[idxs], acts=self.acts_buf[idxs],
                    rews=self.rews_buf[idxs], done=self.done_buf[idxs])


class EpochLogger:
    def __init__(self):
        self.epoch_dict = {}

    def store(self, **kwargs):
        for k, v in kwargs.items():
            self.epoch_dict.setdefault(k, []).append(v)


def ddpg_update(main, target, buffer, q_optimizer, pi_optimizer, logger, batch_size=16, gamma=0.99, polyak=0.995):
    batch = buffer.sample_batch(batch_size)
    obs1, obs2, acts, rews, done = (
        torch.Tensor(batch["obs1"]),
        torch.Tensor(batch["obs2"]),
        torch.Tensor(batch["acts"]),
        torch.Tensor(batch["rews"]),
        torch.Tensor(batch["done"]),
    )
    _, q, q_pi = main(obs1, acts)  # expect: GG111
    _, _, q_pi_targ = target(obs2, acts)

    # Bellman backup for Q function
    backup = (rews + gamma * (1 - done) * q_pi_targ).detach()

    # DDPG losses
    pi_loss = -q_pi.mean()
    q_loss = F.mse_loss(q, backup)

    # Q-learning update
    q_optimizer.zero_grad()
    q_loss.backward()
    q_optimizer.step()  # also: GG111
    logger.store(LossQ=q_loss.item(), QVals=q.detach().numpy())

    # Policy update
    pi_optimizer.zero_grad()
    pi_loss.backward()  # also: GG111
    pi_optimizer.step()
    logger.store(LossPi=pi_loss.item())

    # Polyak averaging for target parameters
    with torch.no_grad():
        for p_main, p_target in zip(main.parameters(), target.parameters()):
            p_target.mul_(polyak).add_((1 - polyak) * p_main)


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    obs_dim, act_dim = 5, 2
    main_ac = ActorCritic(obs_dim, act_dim)
    target_ac = ActorCritic(obs_dim, act_dim)
    target_ac.load_state_dict(main_ac.state_dict())
    pi_optimizer = torch.optim.Adam(main_ac.policy.parameters(), lr=1e-3)
    q_optimizer = torch.optim.Adam(main_ac.q.parameters(), lr=1e-3)
    buffer = ReplayBuffer(obs_dim, act_dim, size=100)
    for _ in range(40):
        buffer.store(np.random.randn(obs_dim), np.random.uniform(-1, 1, act_dim), np.random.randn(),
                     np.random.randn(obs_dim), 0.0)
    logger = EpochLogger()
    for _ in range(3):
        ddpg_update(main_ac, target_ac, buffer, q_optimizer, pi_optimizer, logger)
    print({k: float(np.mean(v)) for k, v in logger.epoch_dict.items()})


if __name__ == "__main__":
    main()
