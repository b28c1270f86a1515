from dataclasses import dataclass


@dataclass
class WGANConfig:
    latent_dim: int = 8
    img_dim: int = 16
    lr: float = 5e-5
    n_critic: int = 2
    clip_value: float = 0.01
    batch_size: int = 4
