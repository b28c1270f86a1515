from .agent import SacAgent
from .memory import Memory
