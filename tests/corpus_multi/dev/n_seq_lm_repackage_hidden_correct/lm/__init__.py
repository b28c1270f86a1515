from .model import LanguageModel
from .trainer import LanguageModelTrainer
