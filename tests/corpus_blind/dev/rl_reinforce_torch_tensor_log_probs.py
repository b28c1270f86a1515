# corpus: REINFORCE agent rebuilds its stored log_probs with torch.tensor(), which copies the values and drops the graph
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/kengz/SLM-Lab/pull/133
import torch
import torch.nn as nn
from torch.distributions import Categorical


class MLPNet(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, out_dim))
        self.optim = torch.optim.Adam(self.parameters(), lr=1e-3)

    def forward(self, x):
        return self.model(x)

    def train_step(self, loss):
        self.optim.zero_grad()
        loss.backward()  # also: GG106
        self.optim.step()
        return loss


class Body:
    def __init__(self):
        self.memory = {"states": [], "rewards": [], "log_probs": [], "dones": []}

    def reset(self):
        for k in self.memory:
            self.memory[k] = []


class Reinforce:
    def __init__(self, body, state_dim, action_dim, gamma=0.99):
        self.body = body
        self.net = MLPNet(state_dim, action_dim)
        self.gamma = gamma

    def calc_pdparam(self, state):
        return self.net(state)

    def act(self, state):
        pd = Categorical(logits=self.calc_pdparam(state))
        action = pd.sample()
        self.body.memory["log_probs"].append(pd.log_prob(action))
        return action.item()

    def calc_ret_advs(self):
        rets = []
        future_ret = 0.0
        for r, done in zip(reversed(self.body.memory["rewards"]), reversed(self.body.memory["dones"])):
            future_ret = r + self.gamma * future_ret * (1 - done)
            rets.insert(0, future_ret)
        rets = torch.tensor(rets)
        return (rets - rets.mean()) / (rets.std() + 1e-8)

    def calc_policy_loss(self, advs):
        log_probs = torch.tensor(self.body.memory["log_probs"])  # expect: GG106
        return -(log_probs * advs).mean()  # also: GG106

    def train(self):
        advs = self.calc_ret_advs()
        loss = self.calc_policy_loss(advs)
        self.net.train_step(loss)  # also: GG106
        self.body.reset()
        return loss.item()


def main():
    torch.manual_seed(0)
    body = Body()
    agent = Reinforce(body, state_dim=4, action_dim=2)
    for epi in range(2):
        for t in range(8):
            state = torch.randn(4)
            action = agent.act(state)
            body.memory["rewards"].append(float(action))
            body.memory["dones"].append(float(t == 7))
        agent.train()


if __name__ == "__main__":
    main()
