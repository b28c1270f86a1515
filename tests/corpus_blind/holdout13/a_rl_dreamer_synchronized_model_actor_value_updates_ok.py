# corpus: Dreamer agent (dreamer-pytorch shape): loss() builds the world-model, actor (imagined rollout through frozen transition/reward/value nets) and value losses, and optimize_agent() then zeroes all three optimizers, runs all three backward passes and only afterwards steps the optimizers (the fix for the torch>=1.5 in-place error); correct
# source: https://github.com/juliusfrost/dreamer-pytorch/issues/52
from contextlib import contextmanager

import torch
import torch.nn as nn


@contextmanager
def FreezeParameters(modules):
    params = [p for m in modules for p in m.parameters()]
    old = [p.requires_grad for p in params]
    for p in params:
        p.requires_grad_(False)
    try:
        yield
    finally:
        for p, flag in zip(params, old):
            p.requires_grad_(flag)


def get_parameters(modules):
    return [p for m in modules for p in m.parameters()]


class DreamerModel(nn.Module):
    def __init__(self, obs_dim=8, act_dim=2, feat=16):
        super().__init__()
        self.observation_encoder = nn.Linear(obs_dim, feat)
        self.representation = nn.GRUCell(feat + act_dim, feat)
        self.transition = nn.GRUCell(act_dim, feat)
        self.observation_decoder = nn.Linear(feat, obs_dim)
        self.reward_model = nn.Linear(feat, 1)
        self.action_decoder = nn.Sequential(nn.Linear(feat, feat), nn.ELU(), nn.Linear(feat, act_dim), nn.Tanh())
        self.value_model = nn.Sequential(nn.Linear(feat, feat), nn.ELU(), nn.Linear(feat, 1))


class Dreamer:
    def __init__(self, model, horizon=5, discount=0.99, grad_clip=100.0):
        self.model, self.horizon, self.discount, self.grad_clip = model, horizon, discount, grad_clip
        self.model_modules = [model.observation_encoder, model.representation, model.transition,
                              model.observation_decoder, model.reward_model]
        self.actor_modules, self.value_modules = [model.action_decoder], [model.value_model]
        self.model_optimizer = torch.optim.Adam(get_parameters(self.model_modules), lr=6e-4)
        self.actor_optimizer = torch.optim.Adam(get_parameters(self.actor_modules), lr=8e-5)
        self.value_optimizer = torch.optim.Adam(get_parameters(self.value_modules), lr=8e-5)

    def loss(self, obs, action, reward):
        m = self.model
        embed = m.observation_encoder(obs)
        state = torch.zeros(obs.size(1), embed.size(-1))
        posts = []
        for t in range(obs.size(0)):
            state = m.representation(torch.cat([embed[t], action[t]], -1), state)
            posts.append(state)
        post = torch.stack(posts)
        model_loss = (m.observation_decoder(post) - obs).pow(2).mean() + (m.reward_model(post) - reward).pow(2).mean()
        with torch.no_grad():
            flat_post = post.reshape(-1, post.size(-1))
        with FreezeParameters(self.model_modules):
            feats, s = [], flat_post
            for _ in range(self.horizon):
                s = m.transition(m.action_decoder(s), s)
                feats.append(s)
            imag_feat = torch.stack(feats)
        with FreezeParameters(self.model_modules + self.value_modules):
            imag_reward = m.reward_model(imag_feat)
            value = m.value_model(imag_feat)
        returns = imag_reward[:-1] + self.discount * value[1:]
        actor_loss = -returns.mean()
        with torch.no_grad():
            value_feat, value_target = imag_feat[:-1].detach(), returns.detach()
        value_loss = (m.value_model(value_feat) - value_target).pow(2).mean()
        return model_loss, actor_loss, value_loss

    def optimize_agent(self, batch, train_steps=3):
        for i in range(train_steps):
            model_loss, actor_loss, value_loss = self.loss(*batch)
            self.model_optimizer.zero_grad()
            self.actor_optimizer.zero_grad()
            self.value_optimizer.zero_grad()
            model_loss.backward()
            actor_loss.backward()
            value_loss.backward()
            torch.nn.utils.clip_grad_norm_(get_parameters(self.model_modules), self.grad_clip)
            torch.nn.utils.clip_grad_norm_(get_parameters(self.actor_modules), self.grad_clip)
            torch.nn.utils.clip_grad_norm_(get_parameters(self.value_modules), self.grad_clip)
            self.model_optimizer.step()
            self.actor_optimizer.step()
            self.value_optimizer.step()
            with torch.no_grad():
                loss = model_loss + actor_loss + value_loss
            print(f"train step {i} loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    agent = Dreamer(DreamerModel())
    T, B = 6, 4
    batch = (torch.randn(T, B, 8), torch.rand(T, B, 2) * 2 - 1, torch.randn(T, B, 1))
    agent.optimize_agent(batch)


if __name__ == "__main__":
    main()
