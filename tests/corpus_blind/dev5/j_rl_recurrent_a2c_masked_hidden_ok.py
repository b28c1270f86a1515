# corpus: recurrent A2C for 3D control: rollouts collected under no_grad into a RolloutStorage, hidden states reset at episode ends by multiplying with the done-masks (out of place), then evaluate_actions re-unrolls the GRU over the stored steps and one combined loss is backpropagated (correct)
# source: https://github.com/edbeeching/3d_control_deep_rl/issues/3
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class CNNPolicy(nn.Module):
    def __init__(self, obs_channels, num_actions, hidden_size=32):
        super().__init__()
        self.conv1 = nn.Conv2d(obs_channels, 8, 3, stride=2)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2)
        self.linear1 = nn.Linear(8 * 3 * 3, hidden_size)
        self.gru = nn.GRUCell(hidden_size, hidden_size)
        self.critic_linear = nn.Linear(hidden_size, 1)
        self.dist_linear = nn.Linear(hidden_size, num_actions)
        self.state_size = hidden_size

    def forward(self, inputs, states, masks):
        x = F.relu(self.conv1(inputs))
        x = F.relu(self.conv2(x))
        x = F.relu(self.linear1(x.view(x.size(0), -1)))
        if inputs.size(0) == states.size(0):
            x = states = self.gru(x, states * masks)
        else:
            x = x.view(-1, states.size(0), x.size(1))
            masks = masks.view(-1, states.size(0), 1)
            outputs = []
            for i in range(x.size(0)):
                hx = states = self.gru(x[i], states * masks[i])
                outputs.append(hx)
            x = torch.cat(outputs, 0)
        return self.critic_linear(x), x, states

    def act(self, inputs, states, masks):
        value, x, states = self(inputs, states, masks)
        action = torch.distributions.Categorical(logits=self.dist_linear(x)).sample().unsqueeze(-1)
        return value, action, states

    def evaluate_actions(self, inputs, states, masks, actions):
        value, x, states = self(inputs, states, masks)
        log_probs = F.log_softmax(self.dist_linear(x), dim=1)
        probs = log_probs.exp()
        action_log_probs = log_probs.gather(1, actions)
        dist_entropy = -(log_probs * probs).sum(-1).mean()
        return value, action_log_probs, dist_entropy, states


class RolloutStorage:
    def __init__(self, num_steps, num_processes, obs_shape, state_size):
        self.observations = torch.zeros(num_steps + 1, num_processes, *obs_shape)
        self.states = torch.zeros(num_steps + 1, num_processes, state_size)
        self.rewards = torch.zeros(num_steps, num_processes, 1)
        self.value_preds = torch.zeros(num_steps + 1, num_processes, 1)
        self.returns = torch.zeros(num_steps + 1, num_processes, 1)
        self.actions = torch.zeros(num_steps, num_processes, 1, dtype=torch.long)
        self.masks = torch.ones(num_steps + 1, num_processes, 1)
        self.num_steps = num_steps

    def insert(self, step, obs, states, action, value_pred, reward, mask):
        self.observations[step + 1].copy_(obs)
        self.states[step + 1].copy_(states)
        self.actions[step].copy_(action)
        self.value_preds[step].copy_(value_pred)
        self.rewards[step].copy_(reward)
        self.masks[step + 1].copy_(mask)

    def compute_returns(self, next_value, gamma):
        self.returns[-1] = next_value
        for step in reversed(range(self.rewards.size(0))):
            self.returns[step] = self.returns[step + 1] * gamma * self.masks[step + 1] + self.rewards[step]

    def after_update(self):
        self.observations[0].copy_(self.observations[-1])
        self.states[0].copy_(self.states[-1])
        self.masks[0].copy_(self.masks[-1])


class DoomStub:
    def __init__(self, num_processes, obs_shape, episode_length=4):
        self.num_processes, self.obs_shape, self.episode_length = num_processes, obs_shape, episode_length
        self.t = 0

    def step(self, actions):
        self.t += 1
        reward = (actions == 0).float()
        done = torch.full((self.num_processes, 1), float(self.t % self.episode_length == 0))
        return torch.randn(self.num_processes, *self.obs_shape), reward, done


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-steps", type=int, default=5)
    parser.add_argument("--num-processes", type=int, default=3)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--value-loss-coef", type=float, default=0.5)
    parser.add_argument("--entropy-coef", type=float, default=0.01)
    parser.add_argument("--lr", type=float, default=7e-4)
    args = parser.parse_args([])

    torch.manual_seed(0)
    obs_shape = (3, 16, 16)
    policy = CNNPolicy(obs_shape[0], num_actions=4)
    optimizer = torch.optim.RMSprop(policy.parameters(), lr=args.lr, eps=1e-5, alpha=0.99)
    env = DoomStub(args.num_processes, obs_shape)
    rollouts = RolloutStorage(args.num_steps, args.num_processes, obs_shape, policy.state_size)
    rollouts.observations[0].copy_(torch.randn(args.num_processes, *obs_shape))
    before = policy.gru.weight_hh.detach().clone()

    for update in range(3):
        for step in range(args.num_steps):
            with torch.no_grad():
                value, action, states = policy.act(rollouts.observations[step], rollouts.states[step],
                                                   rollouts.masks[step])
            obs, reward, done = env.step(action)
            rollouts.insert(step, obs, states, action, value, reward, 1.0 - done)

        with torch.no_grad():
            next_value = policy(rollouts.observations[-1], rollouts.states[-1], rollouts.masks[-1])[0]
        rollouts.compute_returns(next_value, args.gamma)

        values, action_log_probs, dist_entropy, _ = policy.evaluate_actions(
            rollouts.observations[:-1].view(-1, *obs_shape),
            rollouts.states[0],
            rollouts.masks[:-1].view(-1, 1),
            rollouts.actions.view(-1, 1),
        )
        values = values.view(args.num_steps, args.num_processes, 1)
        action_log_probs = action_log_probs.view(args.num_steps, args.num_processes, 1)
        advantages = rollouts.returns[:-1] - values
        value_loss = advantages.pow(2).mean()
        action_loss = -(advantages.detach() * action_log_probs).mean()

        optimizer.zero_grad()
        (value_loss * args.value_loss_coef + action_loss - dist_entropy * args.entropy_coef).backward()
        nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
        optimizer.step()
        rollouts.after_update()
        print(f"update {update}: value_loss {value_loss.item():.4f} action_loss {action_loss.item():.4f}")
    print("gru weights moved:", not torch.equal(before, policy.gru.weight_hh))


if __name__ == "__main__":
    main()
