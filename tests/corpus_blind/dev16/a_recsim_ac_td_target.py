# corpus: Off-policy actor-critic recommender calls td_target.detach() as a bare statement; the TD target keeps its graph through v_net(next_state), so the critic's SmoothL1 loss silently also pushes the bootstrap target (full gradient instead of the semi-gradient).
# source: https://github.com/yuyaya-foifoi/RL-recommendation-simulator/blob/d960e876c6dd97aed1438518f33d8f84bda47ec9/src/agent/actor_critic.py
import numpy as np
import torch
import torch.nn as nn
from torch.distributions.categorical import Categorical

CFG_DICT = {
    "DATASET": {"NUM_ITEMS": 6},
    "ACTOR_CRITIC": {"GAMMA": 0.9, "POLICY_LR": 1e-3, "VALUE_LR": 1e-3},
}


class PolicyNet(nn.Module):
    def __init__(self, state_size, action_size, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_size, hidden), nn.ReLU(),
                                 nn.Linear(hidden, action_size))

    def forward(self, x):
        return torch.softmax(self.net(x), dim=-1)


class ValueNet(nn.Module):
    def __init__(self, state_size, action_size, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_size, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x)


class ActorCriticAgent:
    def __init__(self, device) -> None:
        self.device = device
        self.action_size = CFG_DICT["DATASET"]["NUM_ITEMS"]
        self.state_size = CFG_DICT["DATASET"]["NUM_ITEMS"] + 5
        self.gamma = CFG_DICT["ACTOR_CRITIC"]["GAMMA"]
        self.lr_pl_net = CFG_DICT["ACTOR_CRITIC"]["POLICY_LR"]
        self.lr_v_net = CFG_DICT["ACTOR_CRITIC"]["VALUE_LR"]
        self.pl_net = PolicyNet(self.state_size, self.action_size).to(self.device)
        self.v_net = ValueNet(self.state_size, self.action_size).to(self.device)
        self.optimizer_pl = torch.optim.Adam(self.pl_net.parameters(), lr=self.lr_pl_net)
        self.optimizer_v = torch.optim.Adam(self.v_net.parameters(), lr=self.lr_v_net)
        self.loss_function = nn.SmoothL1Loss()

    def get_action(self, state, size):
        probs = self.pl_net(state)
        m = Categorical(probs)
        action = m.sample((size,))
        return probs, action

    def get_target_probs(self, state, action):
        probs = self.pl_net(state)
        n_batch, _ = probs.shape
        return probs[np.arange(n_batch), action].detach()

    def update(self, state, action, reward, next_state, prob_behavior, prob_target):
        self.optimizer_v.zero_grad()
        self.optimizer_pl.zero_grad()

        rho = prob_target / prob_behavior

        td_target = rho * (reward + self.gamma * self.v_net(next_state))
        td_target.detach()  # expect: GG112
        v = rho * self.v_net(state)

        loss_v = self.loss_function(v, td_target)

        delta = td_target - v
        probs = self.pl_net(state)
        log_pi = torch.log(probs[np.arange(probs.shape[0]), action].unsqueeze(1))
        loss_pl = (-log_pi * delta.detach()).mean()

        loss_v.backward(retain_graph=True)
        loss_pl.backward(retain_graph=True)

        self.optimizer_v.step()
        self.optimizer_pl.step()
        return loss_v.item(), loss_pl.item()


class LoggedBuffer:
    """Transitions logged by a uniform behaviour policy over the item catalogue."""

    def __init__(self, n_items, state_size, size=128):
        self.state = torch.randn(size, state_size)
        self.action = torch.randint(0, n_items, (size,))
        self.reward = (torch.rand(size, 1) < 0.3).float()
        self.next_state = self.state + 0.1 * torch.randn(size, state_size)
        self.prob_behavior = torch.full((size, 1), 1.0 / n_items)

    def get_batch(self, bs):
        idx = torch.randint(0, self.state.shape[0], (bs,))
        return (self.state[idx], self.action[idx], self.reward[idx],
                self.next_state[idx], self.prob_behavior[idx])


class RecommendHandler:
    def __init__(self, agent):
        self.buffer = LoggedBuffer(agent.action_size, agent.state_size)


def rl_trainer(recommend_handler, agent, device, bs, epoch):
    history = []
    for step in np.arange(epoch):
        state, action, reward, next_state, prob_behavior = recommend_handler.buffer.get_batch(bs)
        prob_target = agent.get_target_probs(state.to(device), action.to(torch.long)).unsqueeze(1)
        history.append(agent.update(state.to(device), action, reward.to(device),
                                    next_state.to(device), prob_behavior.to(device),
                                    prob_target.to(device)))
    return agent, recommend_handler, history


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    device = torch.device("cpu")
    agent = ActorCriticAgent(device)
    handler = RecommendHandler(agent)
    agent, handler, history = rl_trainer(handler, agent, device, bs=16, epoch=5)
    print("last losses", history[-1])


if __name__ == "__main__":
    main()
