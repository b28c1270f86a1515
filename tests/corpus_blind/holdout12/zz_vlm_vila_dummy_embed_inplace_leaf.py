# corpus: VILA-style vision-language LoRA fine-tuning; the make_inputs_require_grad forward hook (for gradient checkpointing) turns the frozen embedding output into a leaf that requires grad, and _embed then consumes the dummy media embeddings with `text_embeds += torch.sum(dummy_embed) * 0`, an in-place op on that leaf, which raises
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/NVlabs/VILA/pull/199
import random
from collections import deque
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)

IGNORE_INDEX = -100
IMAGE_TOKEN_ID = 1


@dataclass
class TrainingArguments:
    gradient_checkpointing: bool = True
    lora_enable: bool = True
    tune_mm_projector: bool = True
    learning_rate: float = 2e-4
    max_steps: int = 2


class TinyLlama(nn.Module):
    def __init__(self, vocab=40, hidden=16):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.block = nn.TransformerEncoderLayer(hidden, 2, 32, dropout=0.0, batch_first=True)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)

    def get_input_embeddings(self):
        return self.embed_tokens

    def forward(self, inputs_embeds, labels):
        h = self.block(inputs_embeds, is_causal=True, src_mask=nn.Transformer.generate_square_subsequent_mask(
            inputs_embeds.shape[1]))
        logits = self.lm_head(h)
        return F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1),
                               ignore_index=IGNORE_INDEX)


class VisionTower(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.patch = nn.Conv2d(3, hidden, 4, stride=4)

    def forward(self, images):
        return self.patch(images).flatten(2).transpose(1, 2)  # [N, patches, hidden]


class LlavaLlamaModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.llm = TinyLlama()
        self.vision_tower = VisionTower()
        self.mm_projector = nn.Sequential(nn.Linear(16, 16), nn.GELU(), nn.Linear(16, 16))

    def get_input_embeddings(self):
        return self.llm.get_input_embeddings()

    def __embed_media_tokens(self, media):
        embeds = {}
        for name, images in media.items():
            if images is None:
                continue
            embeds[name] = deque(self.mm_projector(self.vision_tower(images)))
        return embeds

    def _embed(self, input_ids, media, labels):
        text_embeds = self.llm.embed_tokens(input_ids)
        media_embeds = self.__embed_media_tokens(media)

        # This is a workaround to make sure the dummy embeddings are consumed
        while media_embeds.get("dummy"):
            dummy_embed = media_embeds["dummy"].popleft()
            text_embeds += torch.sum(dummy_embed) * 0  # expect: GG108

        inputs, new_labels = [], []
        for k in range(input_ids.shape[0]):
            pieces, lab = [], []
            for pos, tok in enumerate(input_ids[k].tolist()):
                if tok == IMAGE_TOKEN_ID and media_embeds.get("image"):
                    img = media_embeds["image"].popleft()
                    pieces.append(img)
                    lab.append(torch.full((img.shape[0],), IGNORE_INDEX))
                else:
                    pieces.append(text_embeds[k, pos:pos + 1])
                    lab.append(labels[k, pos:pos + 1])
            inputs.append(torch.cat(pieces))
            new_labels.append(torch.cat(lab))
        max_len = max(x.shape[0] for x in inputs)
        inputs = torch.stack([F.pad(x, (0, 0, 0, max_len - x.shape[0])) for x in inputs])
        new_labels = torch.stack([F.pad(y, (0, max_len - y.shape[0]), value=IGNORE_INDEX) for y in new_labels])
        return inputs, new_labels

    def forward(self, input_ids, media, labels):
        inputs_embeds, labels = self._embed(input_ids, media, labels)
        return self.llm(inputs_embeds, labels)


def configure(model, training_args: TrainingArguments):
    model.llm.requires_grad_(False)
    model.vision_tower.requires_grad_(False)
    model.mm_projector.requires_grad_(training_args.tune_mm_projector)
    if training_args.lora_enable:
        model.llm.block.linear1.weight.requires_grad_(True)  # stands in for the LoRA adapters
    if training_args.gradient_checkpointing:
        def make_inputs_require_grad(module, input, output):
            output.requires_grad_(True)

        model.get_input_embeddings().register_forward_hook(make_inputs_require_grad)
    return model


class LLaVATrainer:
    def __init__(self, model, args: TrainingArguments, dataset):
        self.model, self.args, self.dataset = model, args, dataset
        self.optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.learning_rate)

    def training_step(self, inputs):
        self.model.train()
        loss = self.model(**inputs)
        loss.backward()
        return loss.detach()

    def train(self):
        for step, inputs in enumerate(self.dataset[: self.args.max_steps]):
            loss = self.training_step(inputs)
            self.optimizer.step()
            self.optimizer.zero_grad()
            print("step", step, "loss %.4f" % loss.item())


def build_text_only_batches(n=2):
    batches = []
    for _ in range(n):
        input_ids = torch.randint(2, 40, (2, 6))
        labels = input_ids.clone()
        labels[:, :2] = IGNORE_INDEX
        # text-only batch: a dummy image keeps the vision tower and projector in the graph
        batches.append({"input_ids": input_ids, "labels": labels,
                        "media": {"image": None, "dummy": torch.zeros(1, 3, 8, 8)}})
    return batches


def main():
    args = TrainingArguments()
    model = configure(LlavaLlamaModel(), args)
    LLaVATrainer(model, args, build_text_only_batches()).train()


if __name__ == "__main__":
    main()
