from dataclasses import dataclass

import torch


@dataclass
class ZScore:
    mean: float
    std: float

    @classmethod
    def fit(cls, t: torch.Tensor) -> "ZScore":
        return cls(t.mean().item(), t.std().item() + 1e-12)

    def transform(self, t):
        return (t - self.mean) / self.std


@dataclass
class Scalers:
    rho: ZScore
    T: ZScore
    F: ZScore
    S: ZScore
    U: ZScore
    P: ZScore
    Cv: ZScore
