# corpus: PPO trainer (ppo_lightning style) that stores log-probs of the behaviour policy in the batch as detached values and reuses them as logp_old for several epochs of minibatch updates, while logp is recomputed with gradients each minibatch (correct)
# source: https://github.com/sidhantls/ppo_lightning/issues/3
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)


class FakeDiscreteEnv:
    def __init__(self, obs_dim=4, n_actions=3, horizon=20):
        self.obs_dim, self.n_actions, self.horizon, self.t = obs_dim, n_actions, horizon, 0

    def reset(self):
        self.t = 0
        return np.random.randn(self.obs_dim).astype(np.float32)

    def step(self, action):
        self.t += 1
        return np.random.randn(self.obs_dim).astype(np.float32), float(action == 1), self.t >= self.horizon


class ActorCategorical(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.actor_net = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))

    def forward(self, states):
        pi = torch.distributions.Categorical(logits=self.actor_net(states))
        return pi, pi.sample()

    def get_log_prob(self, pi, actions):
        return pi.log_prob(actions)


class PPO:
    def __init__(self, env, steps_per_epoch=32, nb_optim_iters=3, clip_ratio=0.2, gamma=0.99):
        self.env = env
        self.actor = ActorCategorical(env.obs_dim, env.n_actions)
        self.critic = nn.Sequential(nn.Linear(env.obs_dim, 32), nn.Tanh(), nn.Linear(32, 1))
        self.optimizer_actor = torch.optim.Adam(self.actor.parameters(), lr=3e-4)
        self.optimizer_critic = torch.optim.Adam(self.critic.parameters(), lr=1e-3)
        self.steps_per_epoch, self.nb_optim_iters = steps_per_epoch, nb_optim_iters
        self.clip_ratio, self.gamma = clip_ratio, gamma

    def generate_trajectory_samples(self):
        states, actions, logps, rewards, dones = [], [], [], [], []
        state = self.env.reset()
        for _ in range(self.steps_per_epoch):
            with torch.no_grad():
                pi, action = self.actor(torch.as_tensor(state))
                log_prob = self.actor.get_log_prob(pi, action)
            next_state, reward, done = self.env.step(action.item())
            states.append(state); actions.append(action); logps.append(log_prob)
            rewards.append(reward); dones.append(done)
            state = self.env.reset() if done else next_state
        returns, running = [], 0.0
        for r, d in zip(reversed(rewards), reversed(dones)):
            running = r + self.gamma * running * (1.0 - float(d))
            returns.insert(0, running)
        states = torch.as_tensor(np.array(states))
        with torch.no_grad():
            values = self.critic(states).squeeze(-1)
        qvals = torch.tensor(returns, dtype=torch.float32)
        adv = qvals - values
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        return states, torch.stack(actions), torch.stack(logps), qvals, adv

    def actor_loss(self, state, action, logp_old, adv):
        pi, _ = self.actor(state)
        logp = self.actor.get_log_prob(pi, action)
        ratio = torch.exp(logp - logp_old)
        clip_adv = torch.clamp(ratio, 1 - self.clip_ratio, 1 + self.clip_ratio) * adv
        return -(torch.min(ratio * adv, clip_adv)).mean()

    def critic_loss(self, state, qval):
        return (qval - self.critic(state).squeeze(-1)).pow(2).mean()

    def training_epoch(self, batch_size=16):
        states, actions, logp_old, qvals, adv = self.generate_trajectory_samples()
        stats = {}
        for _ in range(self.nb_optim_iters):
            perm = torch.randperm(states.size(0))
            for start in range(0, states.size(0), batch_size):
                idx = perm[start:start + batch_size]
                loss_actor = self.actor_loss(states[idx], actions[idx], logp_old[idx], adv[idx])
                self.optimizer_actor.zero_grad()
                loss_actor.backward()
                self.optimizer_actor.step()
                loss_critic = self.critic_loss(states[idx], qvals[idx])
                self.optimizer_critic.zero_grad()
                loss_critic.backward()
                self.optimizer_critic.step()
                stats = {"loss_actor": loss_actor.item(), "loss_critic": loss_critic.item()}
        return stats


def main():
    ppo = PPO(FakeDiscreteEnv())
    for epoch in range(2):
        print(epoch, ppo.training_epoch())


if __name__ == "__main__":
    main()
