from .module import LSTMLanguageModel
from .loop import TBPTTTrainer

__all__ = ["LSTMLanguageModel", "TBPTTTrainer"]
