from .segmentor import MultimodalEncoderDecoder
from .text_encoder import CLIPTextEncoder

__all__ = ["MultimodalEncoderDecoder", "CLIPTextEncoder"]
