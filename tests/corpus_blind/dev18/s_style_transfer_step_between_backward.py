# corpus: Text style-transfer auto-encoder trains the reconstruction loss with retain_graph=True and steps the optimizer, then backpropagates a style-classifier loss through the same decoder output, whose saved weights the step already changed in place.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/rungjoo/Stable-Style-Transformer/issues/9
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

VOCAB = 40
EMB = 16
HID = 16


class styletransfer(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB)
        self.enc_gru = nn.GRU(EMB, HID, batch_first=True)
        self.att2hid = nn.Linear(2, HID)
        self.dec_gru = nn.GRU(EMB, HID, batch_first=True)
        self.matrix_out = nn.Linear(HID, VOCAB)
        self.aed_params = list(self.emb.parameters()) + list(self.enc_gru.parameters()) \
            + list(self.att2hid.parameters()) + list(self.dec_gru.parameters()) \
            + list(self.matrix_out.parameters())

    def encoder(self, del_idx):
        _, enc_out = self.enc_gru(self.emb(del_idx))
        return enc_out

    def decoder(self, enc_out, token_idx, attribute):
        h0 = enc_out + self.att2hid(attribute).unsqueeze(0)
        dec_out, _ = self.dec_gru(self.emb(token_idx), h0)
        vocab_out = self.matrix_out(dec_out)
        return dec_out, vocab_out

    def recon_loss(self, token_idx, vocab_out):
        return F.cross_entropy(vocab_out[:, :-1].reshape(-1, VOCAB), token_idx[:, 1:].reshape(-1))

    def cls_loss(self, attribute, gen_cls_out):
        return F.binary_cross_entropy_with_logits(gen_cls_out, attribute)


class findattribute(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB)
        self.cls = nn.Linear(EMB, 2)

    def discriminator(self, token_idx):
        return self.cls(self.emb(token_idx).mean(1))

    def gen_discriminator(self, vocab_out):
        soft_tokens = F.softmax(vocab_out, dim=-1)
        return self.cls((soft_tokens @ self.emb.weight).mean(1))

    def att_prob(self, token_idx, sentiment):
        return token_idx[:, :-1] if token_idx.shape[1] > 2 else token_idx


genmodel = styletransfer()
genmodel.train()
dismodel = findattribute()
dismodel.eval()


def main():
    rng = np.random.default_rng(0)
    yelp_neg_dataset = [rng.integers(0, VOCAB, size=rng.integers(5, 9)).tolist() for _ in range(3)]
    yelp_pos_dataset = [rng.integers(0, VOCAB, size=rng.integers(5, 9)).tolist() for _ in range(3)]
    neg_len, pos_len = len(yelp_neg_dataset), len(yelp_pos_dataset)

    aed_initial_lr = 0.00001
    gen_initial_lr = 0.001
    aed_trainer = optim.Adamax(genmodel.aed_params, lr=aed_initial_lr)
    gen_trainer = optim.Adamax(genmodel.aed_params, lr=gen_initial_lr)
    max_grad_norm = 20
    epoch = 1
    stop_point = pos_len * epoch

    for start in range(0, stop_point):
        neg_sentence = yelp_neg_dataset[start % neg_len]
        pos_sentence = yelp_pos_dataset[start % pos_len]
        neg_attribute = torch.from_numpy(np.asarray([[1, 0]])).type(torch.FloatTensor)
        pos_attribute = torch.from_numpy(np.asarray([[0, 1]])).type(torch.FloatTensor)

        sentences = [neg_sentence, pos_sentence]
        attributes = [neg_attribute, pos_attribute]

        for i in range(2):
            sentence = sentences[i]
            attribute = attributes[i]
            token_idx = torch.tensor(sentence).unsqueeze(0)

            max_len = int(token_idx.shape[1] / 2)
            dis_out = dismodel.discriminator(token_idx)
            sentiment = dis_out.argmax(1).cpu().item()

            del_idx = token_idx
            for k in range(max_len):
                del_idx = dismodel.att_prob(del_idx, sentiment)
                dis_out = dismodel.discriminator(del_idx)
                sent_porb = F.softmax(dis_out, 1).squeeze(0)[sentiment].cpu().detach().numpy().item()
                if sent_porb < 0.7:
                    break

            enc_out = genmodel.encoder(del_idx)
            dec_out, vocab_out = genmodel.decoder(enc_out, token_idx, attribute)

            recon_loss = genmodel.recon_loss(token_idx, vocab_out)

            aed_trainer.zero_grad()
            recon_loss.backward(retain_graph=True)
            torch.nn.utils.clip_grad_norm_(genmodel.aed_params, max_grad_norm)
            aed_trainer.step()  # expect: GG111

            gen_cls_out = dismodel.gen_discriminator(vocab_out)
            gen_cls_loss = genmodel.cls_loss(attribute, gen_cls_out)

            gen_trainer.zero_grad()
            gen_cls_loss.backward()  # also: GG111
            torch.nn.utils.clip_grad_norm_(genmodel.aed_params, max_grad_norm)
            gen_trainer.step()

        if (start + 1) % pos_len == 0:
            random.shuffle(yelp_neg_dataset)
            random.shuffle(yelp_pos_dataset)


if __name__ == '__main__':
    torch.manual_seed(0)
    random.seed(0)
    main()
