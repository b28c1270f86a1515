from .classifier import ImageClassifier
from .clip_models import CLIPImageBackbone, CLIPTextHead
from .runner import IterBasedRunner

__all__ = ["ImageClassifier", "CLIPImageBackbone", "CLIPTextHead", "IterBasedRunner"]
