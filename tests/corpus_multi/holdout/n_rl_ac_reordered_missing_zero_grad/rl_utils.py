import numpy as np


class ToyEnv:
    """A 4-d random-walk task: action 1 pushes the first coordinate up, episodes last 8 steps."""

    def __init__(self, seed=0, horizon=8):
        self.rng = np.random.default_rng(seed)
        self.horizon = horizon
        self.t = 0
        self.state = None

    def reset(self):
        self.t = 0
        self.state = self.rng.standard_normal(4).astype(np.float32)
        return self.state

    def step(self, action):
        self.t += 1
        drift = 0.1 if action == 1 else -0.1
        self.state = (self.state + drift + 0.05 * self.rng.standard_normal(4)).astype(np.float32)
        reward = float(self.state[0] > 0)
        done = self.t >= self.horizon
        return self.state, reward, done


def train_on_policy_agent(env, agent, num_episodes):
    return_list = []
    for _ in range(num_episodes):
        episode_return = 0.0
        transition_dict = {"states": [], "actions": [], "next_states": [], "rewards": [], "dones": []}
        state = env.reset()
        done = False
        while not done:
            action = agent.take_action(state)
            next_state, reward, done = env.step(action)
            transition_dict["states"].append(state)
            transition_dict["actions"].append(action)
            transition_dict["next_states"].append(next_state)
            transition_dict["rewards"].append(reward)
            transition_dict["dones"].append(done)
            state = next_state
            episode_return += reward
        return_list.append(episode_return)
        agent.update(transition_dict)  # also: GG201
    return return_list
