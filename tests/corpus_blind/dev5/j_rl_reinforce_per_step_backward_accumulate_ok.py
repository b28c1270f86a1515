# corpus: minimalRL REINFORCE after the fix: gradients are zeroed once per episode, each step's -log(prob)*R is backpropagated inside the loop (each prob has its own forward graph) and a single optimizer step follows the loop (deliberate accumulation, correct)
# source: https://github.com/seungeunrho/minimalRL/issues/26
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

learning_rate = 0.0002
gamma = 0.98


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.data = []
        self.fc1 = nn.Linear(4, 128)
        self.fc2 = nn.Linear(128, 2)
        self.optimizer = optim.Adam(self.parameters(), lr=learning_rate)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return F.softmax(self.fc2(x), dim=0)

    def put_data(self, item):
        self.data.append(item)

    def train_net(self):
        R = 0
        self.optimizer.zero_grad()
        for r, prob in self.data[::-1]:
            R = r + gamma * R
            loss = -torch.log(prob) * R
            loss.backward()
        self.optimizer.step()
        self.data = []


class CartPoleStub:
    def reset(self):
        self.t = 0
        return np.random.randn(4).astype(np.float32)

    def step(self, action):
        self.t += 1
        done = self.t >= 20
        return np.random.randn(4).astype(np.float32), 1.0, done, {}


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    env = CartPoleStub()
    pi = Policy()
    score = 0.0
    print_interval = 2
    before = pi.fc1.weight.detach().clone()
    for n_epi in range(4):
        s = env.reset()
        done = False
        while not done:
            prob = pi(torch.from_numpy(s).float())
            m = Categorical(prob)
            a = m.sample()
            s_prime, r, done, info = env.step(a.item())
            pi.put_data((r, prob[a]))
            s = s_prime
            score += r
        pi.train_net()
        if n_epi % print_interval == 0 and n_epi != 0:
            print(f"# of episode :{n_epi}, avg score : {score / print_interval}")
            score = 0.0
    print("fc1 moved:", not torch.equal(before, pi.fc1.weight))


if __name__ == "__main__":
    main()
