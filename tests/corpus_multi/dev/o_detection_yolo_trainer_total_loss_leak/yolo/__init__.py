from .model import YOLO
from .loss_functions import YOLOLoss
from .solver import ModelTrainer

__all__ = ["YOLO", "YOLOLoss", "ModelTrainer"]
