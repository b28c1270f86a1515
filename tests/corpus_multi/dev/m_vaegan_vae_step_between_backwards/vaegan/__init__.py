from .trainer import VAEGANTrainer

__all__ = ["VAEGANTrainer"]
