# corpus: PPO with V and Q classes (value_functions.py) stepped at every time step while the per-step advantage Q - V fed to the policy's clipped surrogate (policy.py) is not detached; the end-of-episode ascent backpropagates into the value graphs already freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://discuss.pytorch.org/t/pytorch-runtimeerror-trying-to-backward-through-the-graph-a-second-time/191396
import torch

from policy import PolicyNetwork
from value_functions import ActionValueFunction, StateValueFunction

STATE_DIM, N_ACTIONS, GAMMA = 4, 2, 0.99


def env_step(state, action):
    next_state = state + 0.1 * (action.float() * 2 - 1) + 0.05 * torch.randn_like(state)
    reward = (next_state[:, :1] > 0).float()
    return next_state, reward


def run_episode(policy, v_func, q_func, horizon=6):
    state = torch.randn(1, STATE_DIM)
    surrogates = []
    for t in range(horizon):
        action, old_log_prob = policy.act(state)
        next_state, reward = env_step(state, action)

        v = v_func(state)
        q = q_func(state, action)
        with torch.no_grad():
            v_target = reward + GAMMA * v_func(next_state)
            q_target = reward + GAMMA * v_func(next_state)
        advantage = q - v  # expect: GG102
        surrogates.append(policy.clipped_surrogate(state, action, old_log_prob, advantage))

        v_func.sgd(v_func.mse_loss(v, v_target))  # also: GG102
        q_func.sgd(q_func.mse_loss(q, q_target))  # also: GG102
        state = next_state
    return policy.sga(surrogates)  # also: GG102


def main():
    torch.manual_seed(0)
    policy = PolicyNetwork(STATE_DIM, N_ACTIONS)
    v_func = StateValueFunction(STATE_DIM)
    q_func = ActionValueFunction(STATE_DIM, N_ACTIONS)
    for episode in range(3):
        objective = run_episode(policy, v_func, q_func)  # also: GG102
        print(f"episode {episode}: surrogate {objective:.4f}")


if __name__ == "__main__":
    main()
