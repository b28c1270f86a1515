# corpus: minimalRL PPO-LSTM train_net takes first_hidden from the stored rollout transitions (computed with grad during the rollout) without detaching and reuses it in every K_epoch iteration
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/seungeunrho/minimalRL/issues/17
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

learning_rate, gamma, lmbda, eps_clip, K_epoch, T_horizon = 0.0005, 0.98, 0.95, 0.1, 3, 8


class PPO(nn.Module):
    def __init__(self):
        super().__init__()
        self.data = []
        self.fc1 = nn.Linear(4, 16)
        self.lstm = nn.LSTM(16, 8)
        self.fc_pi = nn.Linear(8, 2)
        self.fc_v = nn.Linear(8, 1)
        self.optimizer = optim.Adam(self.parameters(), lr=learning_rate)

    def pi(self, x, hidden):
        x = F.relu(self.fc1(x)).view(-1, 1, 16)
        x, lstm_hidden = self.lstm(x, hidden)
        return F.softmax(self.fc_pi(x), dim=2), lstm_hidden

    def v(self, x, hidden):
        x = F.relu(self.fc1(x)).view(-1, 1, 16)
        x, lstm_hidden = self.lstm(x, hidden)
        return self.fc_v(x)

    def put_data(self, transition):
        self.data.append(transition)

    def make_batch(self):
        s_lst, a_lst, r_lst, s_prime_lst, prob_a_lst, hidden_lst, done_lst = [], [], [], [], [], [], []
        for s, a, r, s_prime, prob_a, hidden, done in self.data:
            s_lst.append(s); a_lst.append([a]); r_lst.append([r]); s_prime_lst.append(s_prime)
            prob_a_lst.append([prob_a]); hidden_lst.append(hidden); done_lst.append([0 if done else 1])
        self.data = []
        return (torch.tensor(np.array(s_lst), dtype=torch.float), torch.tensor(a_lst), torch.tensor(r_lst),
                torch.tensor(np.array(s_prime_lst), dtype=torch.float), torch.tensor(done_lst, dtype=torch.float),
                torch.tensor(prob_a_lst), hidden_lst[0])

    def train_net(self):
        s, a, r, s_prime, done_mask, prob_a, (h1, h2) = self.make_batch()
        first_hidden = (h1, h2)  # expect: GG103
        for i in range(K_epoch):
            v_prime = self.v(s_prime, first_hidden).squeeze(1)
            td_target = r + gamma * v_prime * done_mask
            v_s = self.v(s, first_hidden).squeeze(1)
            delta = (td_target - v_s).detach().numpy()
            advantage_lst, advantage = [], 0.0
            for item in delta[::-1]:
                advantage = gamma * lmbda * advantage + item[0]
                advantage_lst.append([advantage])
            advantage_lst.reverse()
            advantage = torch.tensor(advantage_lst, dtype=torch.float)
            pi, _ = self.pi(s, first_hidden)
            pi_a = pi.squeeze(1).gather(1, a)
            ratio = torch.exp(torch.log(pi_a) - torch.log(prob_a))
            surr1 = ratio * advantage
            surr2 = torch.clamp(ratio, 1 - eps_clip, 1 + eps_clip) * advantage
            loss = -torch.min(surr1, surr2) + F.smooth_l1_loss(v_s, td_target.detach())
            self.optimizer.zero_grad()
            loss.mean().backward()  # also: GG103
            self.optimizer.step()


def main(n_episodes=2, max_steps=20):
    model = PPO()
    for n_epi in range(n_episodes):
        hidden = (torch.zeros([1, 1, 8]), torch.zeros([1, 1, 8]))
        s, done, t_total = np.random.randn(4).astype(np.float32), False, 0
        while not done:
            for t in range(T_horizon):
                prob, hidden = model.pi(torch.from_numpy(s).float(), hidden)
                prob = prob.view(-1)
                a = Categorical(prob).sample().item()
                s_prime, r = np.random.randn(4).astype(np.float32), 1.0
                t_total += 1
                done = t_total >= max_steps
                model.put_data((s, a, r / 100.0, s_prime, prob[a].item(), hidden, done))
                s = s_prime
                if done:
                    break
            model.train_net()
        print("episode", n_epi, "done")


if __name__ == "__main__":
    torch.manual_seed(0)
    np.random.seed(0)
    main()
