from .yolo import Model, Detect

__all__ = ["Model", "Detect"]
