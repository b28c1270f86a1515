from .config import WGANConfig
from .trainer import WGANTrainer

__all__ = ["WGANConfig", "WGANTrainer"]
