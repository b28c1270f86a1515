# corpus: knowledge-neuron editing on a small BERT-like MLM subtracts/adds word embeddings into columns of the FFN output weight in place, outside torch.no_grad(), while the weight is a trainable parameter
# raises: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/Hunter-DDM/knowledge-neurons/issues/14
import torch
import torch.nn as nn
import torch.nn.functional as F


class BertOutput(nn.Module):
    def __init__(self, intermediate, hidden):
        super().__init__()
        self.dense = nn.Linear(intermediate, hidden)


class BertLayer(nn.Module):
    def __init__(self, hidden=16, intermediate=32):
        super().__init__()
        self.intermediate = nn.Linear(hidden, intermediate)
        self.output = BertOutput(intermediate, hidden)
        self.norm = nn.LayerNorm(hidden)

    def forward(self, h):
        return self.norm(h + self.output.dense(F.gelu(self.intermediate(h))))


class BertEmbeddings(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)


class BertEncoder(nn.Module):
    def __init__(self, n_layers, hidden):
        super().__init__()
        self.layer = nn.ModuleList(BertLayer(hidden) for _ in range(n_layers))


class Bert(nn.Module):
    def __init__(self, vocab=30, hidden=16, n_layers=3):
        super().__init__()
        self.embeddings = BertEmbeddings(vocab, hidden)
        self.encoder = BertEncoder(n_layers, hidden)


class BertForMaskedLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.bert = Bert()

    def forward(self, input_ids, tgt_pos):
        h = self.bert.embeddings.word_embeddings(input_ids)
        for layer in self.bert.encoder.layer:
            h = layer(h)
        logits = h[:, tgt_pos] @ self.bert.embeddings.word_embeddings.weight.t()
        return h, logits


def edit(model, input_ids, tgt_pos, tgt_label_id, kn_bag, norm_lambda1=1.0, norm_lambda2=4.0):
    _, logits = model(input_ids, tgt_pos)
    ori_pred_prob, ori_pred_label_id = F.softmax(logits, dim=-1)[0].max(dim=-1)
    ori_tgt_prob = F.softmax(logits, dim=-1)[0, tgt_label_id]

    ori_pred_emb = model.bert.embeddings.word_embeddings.weight[ori_pred_label_id.item()]
    tgt_emb = model.bert.embeddings.word_embeddings.weight[tgt_label_id]
    lambda_list_1, lambda_list_2 = [], []
    for layer, pos in kn_bag:
        value_norm = torch.norm(model.bert.encoder.layer[layer].output.dense.weight[:, pos])
        lambda_list_1.append(value_norm / torch.norm(ori_pred_emb) * norm_lambda1)
        lambda_list_2.append(value_norm / torch.norm(tgt_emb) * norm_lambda2)
    for i, (layer, pos) in enumerate(kn_bag):
        model.bert.encoder.layer[layer].output.dense.weight[:, pos] -= ori_pred_emb * lambda_list_1[i]  # expect: GG108
        model.bert.encoder.layer[layer].output.dense.weight[:, pos] += tgt_emb * lambda_list_2[i]  # also: GG108

    _, logits = model(input_ids, tgt_pos)
    new_tgt_prob = F.softmax(logits, dim=-1)[0, tgt_label_id]
    new_pred_label_id = logits[0].argmax().item()

    # recover knowledge
    for i, (layer, pos) in enumerate(kn_bag):
        model.bert.encoder.layer[layer].output.dense.weight[:, pos] += ori_pred_emb * lambda_list_1[i]  # also: GG108
        model.bert.encoder.layer[layer].output.dense.weight[:, pos] -= tgt_emb * lambda_list_2[i]  # also: GG108
    return {"success_updated": int(new_pred_label_id == tgt_label_id),
            "tgt_prob_inc": new_tgt_prob.item() - ori_tgt_prob.item(),
            "ori_pred_prob": ori_pred_prob.item()}


if __name__ == "__main__":
    torch.manual_seed(0)
    model = BertForMaskedLM()
    input_ids = torch.randint(1, 30, (1, 6))
    kn_bag = [[0, 3], [1, 7], [2, 11]]
    print(edit(model, input_ids, tgt_pos=2, tgt_label_id=5, kn_bag=kn_bag))
