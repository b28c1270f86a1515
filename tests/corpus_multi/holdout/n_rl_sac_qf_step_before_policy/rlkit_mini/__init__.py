from .networks import ConcatMlp, TanhGaussianPolicy
from .replay_buffer import SimpleReplayBuffer
from .sac import SACTrainer
