# corpus: behaviour-cloning pre-training of a RecurrentPPO-style MlpLstmPolicy (sb3-contrib shape): train() threads the student's _last_lstm_states through every batch without detaching them and calls loss.backward(retain_graph=True) before optimizer.step(), so the second batch backpropagates into the first batch's LSTM graph whose weights the step already changed
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/Stable-Baselines-Team/stable-baselines3-contrib/issues/248
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class RecurrentActorCriticPolicy(nn.Module):
    def __init__(self, obs_dim, act_dim, lstm_hidden_size=16):
        super().__init__()
        self.lstm_hidden_size = lstm_hidden_size
        self.features_extractor = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh())
        self.lstm_actor = nn.LSTM(32, lstm_hidden_size)
        self.action_net = nn.Linear(lstm_hidden_size, act_dim)
        self.value_net = nn.Linear(lstm_hidden_size, 1)

    def initial_state(self, n_envs):
        shape = (1, n_envs, self.lstm_hidden_size)
        return torch.zeros(shape), torch.zeros(shape)

    @staticmethod
    def _process_sequence(features, lstm_states, episode_starts, lstm):
        not_start = (1.0 - episode_starts).view(1, -1, 1)
        h, c = lstm_states
        out, (h, c) = lstm(features.unsqueeze(0), (not_start * h, not_start * c))
        return out.squeeze(0), (h, c)

    def forward(self, obs, lstm_states, episode_starts):
        features = self.features_extractor(obs)
        latent_pi, lstm_states = self._process_sequence(features, lstm_states, episode_starts, self.lstm_actor)
        actions = torch.tanh(self.action_net(latent_pi))
        values = self.value_net(latent_pi)
        return actions, values, lstm_states


class RecurrentPPO:
    def __init__(self, obs_dim, act_dim, n_envs):
        self.policy = RecurrentActorCriticPolicy(obs_dim, act_dim)
        self.n_envs = n_envs
        self._last_lstm_states = self.policy.initial_state(n_envs)


def make_expert_dataset(n, obs_dim, act_dim):
    rng = np.random.default_rng(0)
    obs = rng.normal(size=(n, obs_dim)).astype(np.float32)
    w = rng.normal(size=(obs_dim, act_dim)).astype(np.float32)
    acts = np.tanh(obs @ w).astype(np.float32)
    return TensorDataset(torch.from_numpy(obs), torch.from_numpy(acts))


def train(model, device, train_loader, optimizer, start_lstm_state):
    model.train()
    criterion = nn.MSELoss()
    lstm_state = start_lstm_state
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        episode_starts = torch.zeros(data.shape[0])
        optimizer.zero_grad()
        action, _, lstm_state = model(data, lstm_state, episode_starts)  # expect: GG104
        action_prediction = action.double()
        loss = criterion(action_prediction.view(-1), target.double().view(-1))
        loss.backward(retain_graph=True)  # also: GG104
        optimizer.step()
        print(f"batch {batch_idx} loss {loss.item():.4f}")


def test(model, device, test_loader, start_lstm_state):
    model.eval()
    lstm_state = start_lstm_state
    total = 0.0
    with torch.no_grad():
        for data, target in test_loader:
            episode_starts = torch.zeros(data.shape[0])
            action, _, lstm_state = model(data.to(device), lstm_state, episode_starts)
            total += nn.functional.mse_loss(action, target.to(device)).item()
    print(f"test loss {total / len(test_loader):.4f}")


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    n_envs, obs_dim, act_dim = 4, 6, 2
    student = RecurrentPPO(obs_dim, act_dim, n_envs)
    student_policy = student.policy.to(device)
    train_loader = DataLoader(make_expert_dataset(64, obs_dim, act_dim), batch_size=n_envs, drop_last=True)
    test_loader = DataLoader(make_expert_dataset(16, obs_dim, act_dim), batch_size=n_envs, drop_last=True)
    optimizer = torch.optim.Adadelta(student_policy.parameters(), lr=1.0)
    for epoch in range(1, 3):
        train(student_policy, device, train_loader, optimizer, student._last_lstm_states)
        test(student_policy, device, test_loader, student._last_lstm_states)
    student.policy = student_policy


if __name__ == "__main__":
    main()
