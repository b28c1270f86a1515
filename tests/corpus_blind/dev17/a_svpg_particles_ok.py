# corpus: Stein Variational Policy Gradient over a few particles hands actions to numpy through .detach()/.item(), detaches returns and advantages, and backpropagates each particle's critic and policy losses through separate graphs before the kernelised update; correct.
# source: https://github.com/montrealrobotics/active-domainrand/blob/e6dc550734f9e5946d3300f26d21412f3ebd418c/common/svpg/svpg.py
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from scipy.spatial.distance import pdist, squareform
from torch.distributions import Normal
from torch.distributions.kl import kl_divergence

LEARNING_RATE = 3e-4
HIDDEN_DIMENSIONS = 16


def parameters_to_vector(parameters, both=False):
    params, grads = [], []
    for p in parameters:
        params.append(p.data.view(-1))
        if both:
            grads.append(p.grad.data.view(-1))
    return (torch.cat(params), torch.cat(grads)) if both else torch.cat(params)


def vector_to_parameters(vec, parameters, grad=True):
    pointer = 0
    for p in parameters:
        n = p.numel()
        if grad:
            p.grad = vec[pointer:pointer + n].view_as(p).clone()
        else:
            p.data.copy_(vec[pointer:pointer + n].view_as(p))
        pointer += n


class SVPGParticleActor(nn.Module):
    def __init__(self, input_dim, output_dim, hidden_dim):
        super().__init__()
        self.actor_hidden = nn.Linear(input_dim, hidden_dim)
        self.actor_mu = nn.Linear(hidden_dim, output_dim)
        self.log_std = nn.Parameter(torch.zeros(output_dim) - 1.0)

    def forward(self, x):
        mu = torch.tanh(self.actor_mu(torch.tanh(self.actor_hidden(x))))
        return Normal(mu, self.log_std.exp())


class SVPGParticleCritic(nn.Module):
    def __init__(self, input_dim, hidden_dim):
        super().__init__()
        self.critic_hidden = nn.Linear(input_dim, hidden_dim)
        self.critic_out = nn.Linear(hidden_dim, 1)

    def forward(self, x):
        return self.critic_out(torch.tanh(self.critic_hidden(x)))


class SVPGParticle(nn.Module):
    def __init__(self, input_dim, output_dim, hidden_dim, freeze=False):
        super().__init__()
        self.actor = SVPGParticleActor(input_dim, output_dim, hidden_dim)
        self.critic = SVPGParticleCritic(input_dim, hidden_dim)
        self.reset()
        if freeze:
            for p in self.parameters():
                p.requires_grad_(False)

    def forward(self, x):
        return self.actor(x), self.critic(x)

    def reset(self):
        self.saved_log_probs = []
        self.saved_klds = []
        self.saved_values = []


class SVPG:
    def __init__(self, nagents, nparams, max_step_length, svpg_rollout_length, temperature, kld_coefficient):
        self.nagents, self.nparams = nagents, nparams
        self.max_step_length = max_step_length
        self.svpg_rollout_length = svpg_rollout_length
        self.temperature = temperature
        self.kld_coefficient = kld_coefficient
        self.gamma = 0.99
        self.last_states = np.random.uniform(0, 1, (self.nagents, self.nparams))
        self.particles, self.prior_particles, self.optimizers = [], [], []
        for i in range(self.nagents):
            policy = SVPGParticle(nparams, nparams, HIDDEN_DIMENSIONS)
            prior_policy = SVPGParticle(nparams, nparams, HIDDEN_DIMENSIONS, freeze=True)
            self.particles.append(policy)
            self.prior_particles.append(prior_policy)
            self.optimizers.append(optim.Adam(policy.parameters(), lr=LEARNING_RATE))

    def _Kxx_dxKxx(self, X):
        X_np = X.cpu().data.numpy()
        pairwise_dists = squareform(pdist(X_np)) ** 2
        h = np.median(pairwise_dists)
        h = np.sqrt(0.5 * h / np.log(self.nagents + 1))
        Kxx = torch.exp(-torch.from_numpy(pairwise_dists).float() / h ** 2 / 2)
        dxKxx = -(Kxx).matmul(X)
        sumKxx = Kxx.sum(1)
        for i in range(X.shape[1]):
            dxKxx[:, i] = dxKxx[:, i] + X[:, i].matmul(sumKxx)
        dxKxx /= (h ** 2)
        return Kxx, dxKxx

    def select_action(self, policy_idx, state):
        state = torch.from_numpy(state).float().unsqueeze(0)
        policy = self.particles[policy_idx]
        prior_policy = self.prior_particles[policy_idx]
        dist, value = policy(state)
        prior_dist, _ = prior_policy(state)
        action = dist.sample()
        policy.saved_log_probs.append(dist.log_prob(action).sum(-1))
        policy.saved_klds.append(kl_divergence(dist, prior_dist).sum(-1))
        if self.nparams == 1:
            action = action.item()
        else:
            action = action.squeeze().cpu().detach().numpy()
        return action, value

    def compute_returns(self, next_value, rewards, masks, klds):
        R = next_value
        returns = []
        for step in reversed(range(len(rewards))):
            R = self.gamma * masks[step] * R + (rewards[step] - self.kld_coefficient * klds[step])
            returns.insert(0, R)
        return returns

    def step(self):
        simulation_instances = np.zeros((self.nagents, self.svpg_rollout_length, self.nparams))
        self.masks = np.ones((self.nagents, self.svpg_rollout_length))
        for i in range(self.nagents):
            self.particles[i].reset()
            current_sim_params = self.last_states[i]
            for t in range(self.svpg_rollout_length):
                simulation_instances[i][t] = current_sim_params
                action, value = self.select_action(i, current_sim_params)
                self.particles[i].saved_values.append(value)
                clipped_action = np.asarray(action) * self.max_step_length
                current_sim_params = np.clip(current_sim_params + clipped_action, 0, 1)
            self.last_states[i] = current_sim_params
        return simulation_instances

    def train(self, simulator_rewards):
        policy_grads, parameters = [], []
        for i in range(self.nagents):
            policy_grad_particle = []
            _, next_value = self.select_action(i, self.last_states[i])
            particle_rewards = torch.from_numpy(simulator_rewards[i]).float()
            masks = torch.from_numpy(self.masks[i]).float()

            returns = self.compute_returns(next_value, particle_rewards, masks, self.particles[i].saved_klds)
            returns = torch.cat(returns).detach()
            values = torch.cat(self.particles[i].saved_values)
            advantages = returns - values

            for log_prob, advantage in zip(self.particles[i].saved_log_probs, advantages):
                policy_grad_particle.append(log_prob * advantage.detach())

            # Compute value loss, update critic
            self.optimizers[i].zero_grad()
            critic_loss = 0.5 * advantages.pow(2).mean()
            critic_loss.backward(retain_graph=True)
            self.optimizers[i].step()

            # Store policy gradients for SVPG update
            self.optimizers[i].zero_grad()
            policy_grad = -torch.cat(policy_grad_particle).mean()
            policy_grad.backward()

            vec_param, vec_policy_grad = parameters_to_vector(self.particles[i].actor.parameters(), both=True)
            policy_grads.append(vec_policy_grad.unsqueeze(0))
            parameters.append(vec_param.unsqueeze(0))

        parameters = torch.cat(parameters)
        Kxx, dxKxx = self._Kxx_dxKxx(parameters)
        policy_grads = 1 / self.temperature * torch.cat(policy_grads)
        grad_logp = torch.mm(Kxx, policy_grads)
        grad_theta = (grad_logp + dxKxx) / self.nagents

        for i in range(self.nagents):
            vector_to_parameters(grad_theta[i], self.particles[i].actor.parameters(), grad=True)
            self.optimizers[i].step()


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    svpg = SVPG(nagents=3, nparams=2, max_step_length=0.05, svpg_rollout_length=5,
                temperature=10.0, kld_coefficient=0.0)
    for it in range(3):
        instances = svpg.step()
        rewards = -np.abs(instances - 0.5).sum(-1)  # settings close to 0.5 are rewarded
        svpg.train(rewards)
    print("last states", np.round(svpg.last_states, 3).tolist())


if __name__ == "__main__":
    main()
