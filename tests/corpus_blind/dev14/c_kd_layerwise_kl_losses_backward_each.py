# corpus: layer-wise BERT-style distillation (pytorch issue 40005 shape): one student forward returns all hidden states, then a loop builds a KL loss per mapped encoder layer and calls backward on each one separately to train intermediate layers independently; the second layer's loss reaches the shared lower layers whose buffers the first backward freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/pytorch/pytorch/issues/40005
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, vocab=40, dim=16, n_layers=4):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, dim)
        self.layer = nn.ModuleList([nn.TransformerEncoderLayer(dim, 2, 32, dropout=0.0, batch_first=True)
                                    for _ in range(n_layers)])

    def forward(self, input_ids):
        h = self.embeddings(input_ids)
        hidden_states = [h]
        for layer in self.layer:
            h = layer(h)
            hidden_states.append(h)
        return hidden_states


def layer_kl(student_h, teacher_h):
    batch, row, col = student_h.size()
    loss = nn.KLDivLoss(reduction="batchmean")
    return loss(F.log_softmax(student_h, dim=2).view(batch * row, 1, col),
                F.softmax(teacher_h, dim=2).view(batch * row, 1, col))


class LayerwiseDistiller:
    def __init__(self, t_model, s_model, encoder_layers, lr=1e-3):
        self.t_model, self.s_model = t_model.eval(), s_model
        self.encoder_layers = encoder_layers
        self.optimizer = torch.optim.AdamW(s_model.parameters(), lr=lr)

    def step(self, inputs):
        with torch.no_grad():
            t_result = self.t_model(inputs)
        s_outputs = self.s_model(inputs)
        self.optimizer.zero_grad()
        per_layer = []
        for i, k in enumerate(self.encoder_layers):
            output = layer_kl(s_outputs[i + 1], t_result[k + 1])
            for name, p in self.s_model.named_parameters():
                if "layer." + str(i - 1) + "." in name:
                    p.requires_grad = False
            output.backward()  # expect: GG102
            per_layer.append(output.item())
        self.optimizer.step()
        return per_layer


def main():
    torch.manual_seed(0)
    teacher = Encoder(n_layers=4)
    student = Encoder(n_layers=2)
    distiller = LayerwiseDistiller(teacher, student, encoder_layers=[1, 3])
    for it in range(3):
        inputs = torch.randint(0, 40, (4, 10))
        print("iter", it, "layer losses", [round(v, 4) for v in distiller.step(inputs)])


if __name__ == "__main__":
    main()
