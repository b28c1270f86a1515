import torch
import torch.nn as nn


def train(model, train_loader, optimizer, start_lstm_state):
    """Behaviour-cloning pre-training of a recurrent policy on expert (obs, action) steps."""
    model.train()
    criterion = nn.MSELoss()
    lstm_states = start_lstm_state
    losses = []
    for batch_idx, (obs, target_action, episode_starts) in enumerate(train_loader):
        optimizer.zero_grad()
        action, _, _, lstm_states = model(obs, lstm_states, episode_starts, deterministic=True)  # also: GG302
        loss = criterion(action, target_action)
        loss.backward(retain_graph=True)  # expect: GG302
        optimizer.step()
        losses.append(loss.item())
    return losses


@torch.no_grad()
def test(model, test_loader, start_lstm_state):
    model.eval()
    lstm_states = start_lstm_state
    total = 0.0
    for obs, target_action, episode_starts in test_loader:
        action, _, _, lstm_states = model(obs, lstm_states, episode_starts, deterministic=True)
        total += nn.functional.mse_loss(action, target_action).item()
    return total / len(test_loader)
