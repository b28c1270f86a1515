from .agent import MujocoAgent
from .algorithm import DDPG
from .model import MujocoModel
from .replay_memory import ReplayMemory
