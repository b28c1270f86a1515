# corpus: behaviour-cloning pre-training of an SB3-contrib-style recurrent policy (policies.py); imitation.py carries the LSTM states from batch to batch and hides the resulting graph reuse with retain_graph=True, so the next backward meets weights the optimizer already stepped
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/Stable-Baselines-Team/stable-baselines3-contrib/issues/248
import torch

from imitation import test, train
from policies import RecurrentActorCriticPolicy

N_ENVS, OBS_DIM, ACTION_DIM, N_STEPS = 4, 6, 2, 6


def expert_rollout(n_steps):
    data = []
    for t in range(n_steps):
        obs = torch.randn(N_ENVS, OBS_DIM)
        expert_action = torch.tanh(obs[:, :ACTION_DIM])
        episode_starts = torch.full((N_ENVS,), float(t == 0))
        data.append((obs, expert_action, episode_starts))
    return data


def main():
    torch.manual_seed(0)
    student_policy = RecurrentActorCriticPolicy(OBS_DIM, ACTION_DIM)
    optimizer = torch.optim.Adadelta(student_policy.parameters(), lr=1.0)
    train_loader, test_loader = expert_rollout(N_STEPS), expert_rollout(3)
    last_lstm_states = student_policy.initial_state(N_ENVS)
    for epoch in range(1, 3):
        losses = train(student_policy, train_loader, optimizer, last_lstm_states)  # also: GG302
        print(epoch, sum(losses) / len(losses), test(student_policy, test_loader, last_lstm_states))


if __name__ == "__main__":
    main()
