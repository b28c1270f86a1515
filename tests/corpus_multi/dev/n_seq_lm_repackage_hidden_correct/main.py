# corpus: flair-style LM trainer (lm/trainer.py) carries the LSTM (h, c) between batches but repackages it every batch with the model's tuple-aware repackage_hidden (lm/model.py), and logs loss.item(); correct
# source: https://github.com/flairNLP/flair/issues/1062
import torch

from lm import LanguageModel, LanguageModelTrainer

N_TOKENS = 12


def main():
    torch.manual_seed(0)
    corpus = torch.randint(0, N_TOKENS, (64,))
    model = LanguageModel(N_TOKENS)
    trainer = LanguageModelTrainer(model, corpus)
    for epoch in range(3):
        print(f"epoch {epoch}: loss {trainer.train_epoch():.4f}")


if __name__ == "__main__":
    main()
