# corpus: rlkit-style SAC trainer (rlkit_mini/sac.py) builds policy_loss through qf1/qf2, steps the Q optimizers, then backpropagates policy_loss through the stepped Q weights
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/rail-berkeley/rlkit/pull/109
import numpy as np
import torch

from rlkit_mini import ConcatMlp, SACTrainer, SimpleReplayBuffer, TanhGaussianPolicy

OBS_DIM, ACTION_DIM = 5, 2


def collect_random(buffer, rng, n=64):
    obs = rng.standard_normal(OBS_DIM).astype(np.float32)
    for _ in range(n):
        action = rng.uniform(-1, 1, ACTION_DIM).astype(np.float32)
        next_obs = rng.standard_normal(OBS_DIM).astype(np.float32)
        reward = float(-np.square(action).sum())
        buffer.add_sample(obs, action, reward, next_obs, 0.0)
        obs = next_obs


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    policy = TanhGaussianPolicy(OBS_DIM, ACTION_DIM)
    qf1 = ConcatMlp(OBS_DIM + ACTION_DIM)
    qf2 = ConcatMlp(OBS_DIM + ACTION_DIM)
    trainer = SACTrainer(policy, qf1, qf2)
    buffer = SimpleReplayBuffer(1000, OBS_DIM, ACTION_DIM)
    collect_random(buffer, rng)
    for step in range(3):
        trainer.train_from_torch(buffer.random_batch(16, rng))  # also: GG111
        print(step, trainer.eval_statistics)


if __name__ == "__main__":
    main()
