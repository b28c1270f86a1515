# corpus: GRU encoder-decoder encodes the sample once, then calls enforce_encoding (backward + step) once per beam candidate with that same encoding
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/shihui2010/symbolic_simplifier/issues/3
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 15
HID = 12


class EncoderDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HID)
        self.encoder = nn.GRU(HID, HID, batch_first=True)
        self.decoder = nn.GRU(HID, HID, batch_first=True)
        self.proj = nn.Linear(HID, VOCAB)
        self.optimizer = torch.optim.Adam(self.parameters(), lr=1e-3)

    def encode(self, seqs):
        _, h = self.encoder(self.embed(seqs))
        return h[-1]

    def enforce_encoding(self, s2, encoded1, positive=True, margin=0.5):
        encoded2 = self.encode(s2)
        sim = F.cosine_similarity(encoded1, encoded2).mean()
        loss = (1.0 - sim) if positive else F.relu(sim - margin)
        self.optimizer.zero_grad()
        loss.backward()  # also: GG103
        self.optimizer.step()
        return loss.item()

    def beam_search(self, seqs, width=3):
        # stand-in for the real beam search: random rewrites of the input
        return [torch.randint(0, VOCAB, seqs.shape) for _ in range(width)]

    def train_step(self, sample_input, equivalences):
        hidden_states = self.encode(sample_input)  # expect: GG103
        unequals = self.beam_search(sample_input)
        logs = []
        for eq in equivalences:
            logs.append(self.enforce_encoding(s2=eq, encoded1=hidden_states, positive=True))  # also: GG103
        for ne in unequals:
            ne = ne.clone()
            logs.append(self.enforce_encoding(s2=ne, encoded1=hidden_states, positive=False))  # also: GG103
        return logs


def main():
    torch.manual_seed(0)
    model = EncoderDecoder()
    sample = torch.randint(0, VOCAB, (2, 7))
    equivalences = [torch.randint(0, VOCAB, (2, 7))]
    print(model.train_step(sample, equivalences))


if __name__ == "__main__":
    main()
