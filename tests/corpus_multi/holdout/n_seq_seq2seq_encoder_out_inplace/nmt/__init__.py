from .model import Seq2Seq
