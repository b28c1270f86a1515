from . import engine, model_factory, utils

__all__ = ["engine", "model_factory", "utils"]
