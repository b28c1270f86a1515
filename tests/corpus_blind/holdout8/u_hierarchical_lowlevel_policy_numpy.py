# corpus: hierarchical-control action term feeds high-level commands to a pre-trained low-level locomotion policy outside inference mode and converts its output with .numpy() for the simulator, which fails because the output still requires grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/isaac-sim/IsaacLab/pull/5923
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn


@dataclass
class PreTrainedPolicyActionCfg:
    obs_dim: int = 10
    command_dim: int = 3
    joint_dim: int = 6
    decimation: int = 4


class LowLevelPolicy(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(in_dim, 64), nn.ELU(), nn.Linear(64, out_dim))

    def forward(self, obs):
        return self.actor(obs)


class ToySim:
    """Numpy-backed joint-position simulator."""

    def __init__(self, num_envs, joint_dim):
        self.joint_pos = np.zeros((num_envs, joint_dim), dtype=np.float32)

    def set_joint_position_target(self, targets):
        self.joint_pos += 0.1 * (targets - self.joint_pos)

    def observe(self, obs_dim):
        base = np.random.randn(self.joint_pos.shape[0], obs_dim - self.joint_pos.shape[1]).astype(np.float32)
        return np.concatenate([base, self.joint_pos], axis=1)


class PreTrainedPolicyAction:
    def __init__(self, cfg, sim, state_dict):
        self.cfg = cfg
        self.sim = sim
        self.policy = LowLevelPolicy(cfg.obs_dim + cfg.command_dim, cfg.joint_dim)
        self.policy.load_state_dict(state_dict)
        self._raw_actions = torch.zeros(sim.joint_pos.shape[0], cfg.command_dim)
        self.low_level_actions = np.zeros((sim.joint_pos.shape[0], cfg.joint_dim), dtype=np.float32)

    def process_actions(self, actions):
        self._raw_actions[:] = actions

    def apply_actions(self):
        obs = torch.from_numpy(self.sim.observe(self.cfg.obs_dim))
        policy_obs = torch.cat([obs, self._raw_actions], dim=-1)
        actions = self.policy(policy_obs)
        self.low_level_actions[:] = actions.numpy()  # expect: GG110
        self.sim.set_joint_position_target(self.low_level_actions)


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    cfg = PreTrainedPolicyActionCfg()
    checkpoint = LowLevelPolicy(cfg.obs_dim + cfg.command_dim, cfg.joint_dim).state_dict()
    sim = ToySim(num_envs=4, joint_dim=cfg.joint_dim)
    action_term = PreTrainedPolicyAction(cfg, sim, checkpoint)
    for step in range(3):
        action_term.process_actions(torch.randn(4, cfg.command_dim))
        for _ in range(cfg.decimation):
            action_term.apply_actions()
        print(step, sim.joint_pos.mean())


if __name__ == "__main__":
    main()
