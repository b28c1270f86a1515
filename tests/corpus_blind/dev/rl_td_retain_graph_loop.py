# corpus: TD learner encodes the whole episode once, then backprops each step's TD loss with retain_graph=True inside the loop to get past the reuse error
# source: https://github.com/rentruewang/brief/issues/1
import torch
import torch.nn as nn


class QAgent(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=32, gamma=0.95):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU())
        self.q_head = nn.Linear(hidden, n_actions)
        self.gamma = gamma
        self.optimizer = torch.optim.SGD(self.parameters(), lr=1e-2)

    def play_episode(self, length, obs_dim):
        states = torch.randn(length, obs_dim)
        actions = torch.randint(0, self.q_head.out_features, (length,))
        rewards = torch.randn(length)
        return states, actions, rewards

    def learn_episode(self, states, actions, rewards):
        emb = self.encoder(states)  # also: GG302
        self.optimizer.zero_grad()
        total = 0.0
        for t in range(len(rewards) - 1):
            q_t = self.q_head(emb[t])[actions[t]]
            with torch.no_grad():
                q_next = self.q_head(emb[t + 1]).max()
            td = rewards[t] + self.gamma * q_next - q_t
            loss = td.pow(2)
            loss.backward(retain_graph=True)  # expect: GG302
            total += loss.item()
        self.optimizer.step()
        return total, emb


def main():
    torch.manual_seed(0)
    agent = QAgent(obs_dim=5, n_actions=3)
    history = []
    emb = None
    for episode in range(3):
        states, actions, rewards = agent.play_episode(10, 5)
        total, emb = agent.learn_episode(states, actions, rewards)
        history.append(total)
    return agent, emb


if __name__ == "__main__":
    agent, emb = main()
    # ground truth: the episode graph is still retained after the update (buffers were never freed)
    assert emb.grad_fn is not None
    emb.sum().backward()  # would raise "backward through the graph a second time" if it had been freed
    assert all(p.grad is not None for p in agent.encoder.parameters())
