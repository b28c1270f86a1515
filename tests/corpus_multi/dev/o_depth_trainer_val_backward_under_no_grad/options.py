from dataclasses import dataclass, field


@dataclass
class MonodepthOptions:
    height: int = 16
    width: int = 32
    batch_size: int = 2
    num_epochs: int = 1
    learning_rate: float = 1e-4
    scheduler_step_size: int = 15
    scales: list = field(default_factory=lambda: [0, 1])
    min_depth: float = 0.1
    max_depth: float = 100.0
    disparity_smoothness: float = 1e-3
    log_frequency: int = 2
    adapt_on_val: bool = True  # fine-tune on the validation minibatch after logging it
