# corpus: MNAD memory-guided autoencoder for video anomaly detection: the memory items m_items are carried across iterations and rewritten from the encoder queries every step, but Memory.update returns updated_memory.detach() and reads use detached scores, so backward(retain_graph=True) plus optimizer.step() in the loop is harmless and the encoder/decoder train normally.
# source: https://github.com/cvlab-yonsei/MNAD/issues/57
import torch
import torch.nn as nn
import torch.nn.functional as F


class Memory(nn.Module):
    def __init__(self, memory_size, feature_dim, key_dim, temp_update, temp_gather):
        super().__init__()
        self.memory_size = memory_size
        self.feature_dim = feature_dim
        self.key_dim = key_dim
        self.temp_update = temp_update
        self.temp_gather = temp_gather

    def get_update_query(self, mem, max_indices, score, query):
        m, d = mem.size()
        query_update = torch.zeros((m, d))
        for i in range(m):
            idx = torch.nonzero(max_indices.squeeze(1) == i)
            if idx.size(0) != 0:
                query_update[i] = torch.sum(((score[idx, i] / torch.max(score[:, i])) * query[idx].squeeze(1)), dim=0)
        return query_update

    def get_score(self, mem, query):
        bs, h, w, d = query.size()
        score = torch.matmul(query, torch.t(mem)).view(bs * h * w, -1)
        return F.softmax(score, dim=0), F.softmax(score, dim=1)

    def forward(self, query, keys, train=True):
        query = F.normalize(query, dim=1).permute(0, 2, 3, 1)
        separateness_loss, compactness_loss = self.gather_loss(query, keys)
        updated_query, softmax_score_query, softmax_score_memory = self.read(query, keys)
        updated_memory = self.update(query, keys)
        return updated_query, updated_memory, softmax_score_query, softmax_score_memory, separateness_loss, compactness_loss

    def update(self, query, keys):
        bs, h, w, d = query.size()
        softmax_score_query, softmax_score_memory = self.get_score(keys, query)
        query_reshape = query.contiguous().view(bs * h * w, d)
        _, gathering_indices = torch.topk(softmax_score_memory, 1, dim=1)
        query_update = self.get_update_query(keys, gathering_indices, softmax_score_query, query_reshape)
        updated_memory = F.normalize(query_update + keys, dim=1)
        return updated_memory.detach()

    def gather_loss(self, query, keys):
        bs, h, w, d = query.size()
        loss = torch.nn.TripletMarginLoss(margin=1.0)
        loss_mse = torch.nn.MSELoss()
        softmax_score_query, softmax_score_memory = self.get_score(keys, query)
        query_reshape = query.contiguous().view(bs * h * w, d)
        _, gathering_indices = torch.topk(softmax_score_memory, 2, dim=1)
        pos = keys[gathering_indices[:, 0]]
        neg = keys[gathering_indices[:, 1]]
        top1_loss = loss_mse(query_reshape, pos.detach())
        gathering_loss = loss(query_reshape, pos.detach(), neg.detach())
        return gathering_loss, top1_loss

    def read(self, query, updated_memory):
        bs, h, w, d = query.size()
        softmax_score_query, softmax_score_memory = self.get_score(updated_memory, query)
        query_reshape = query.contiguous().view(bs * h * w, d)
        concat_memory = torch.matmul(softmax_score_memory.detach(), updated_memory)
        updated_query = torch.cat((query_reshape, concat_memory), dim=1).view(bs, h, w, 2 * d).permute(0, 3, 1, 2)
        return updated_query, softmax_score_query, softmax_score_memory


class convAE(nn.Module):
    def __init__(self, n_channel=3, feature_dim=8, key_dim=8, memory_size=4, temp_update=0.1, temp_gather=0.1):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(n_channel, feature_dim, 3, stride=2, padding=1), nn.ReLU())
        self.decoder = nn.Sequential(nn.ConvTranspose2d(2 * feature_dim, 8, 4, stride=2, padding=1), nn.ReLU(),
                                     nn.Conv2d(8, n_channel, 3, padding=1), nn.Tanh())
        self.memory = Memory(memory_size, feature_dim, key_dim, temp_update, temp_gather)

    def forward(self, x, keys, train=True):
        fea = self.encoder(x)
        updated_fea, keys, softmax_score_query, softmax_score_memory, separateness_loss, compactness_loss = self.memory(fea, keys, train)
        output = self.decoder(updated_fea)
        return output, fea, updated_fea, keys, softmax_score_query, softmax_score_memory, separateness_loss, compactness_loss


def main():
    torch.manual_seed(0)
    args = {"msize": 4, "mdim": 8, "epochs": 2, "lr": 2e-4, "loss_compact": 0.1, "loss_separate": 0.1}
    model = convAE(3, args["mdim"], args["mdim"], args["msize"])
    params = list(model.encoder.parameters()) + list(model.decoder.parameters())
    optimizer = torch.optim.Adam(params, lr=args["lr"])
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args["epochs"])
    loss_func_mse = nn.MSELoss(reduction="none")
    train_batch = [torch.rand(2, 3, 8, 8) * 2 - 1 for _ in range(3)]

    m_items = F.normalize(torch.rand((args["msize"], args["mdim"]), dtype=torch.float), dim=1)
    for epoch in range(args["epochs"]):
        model.train()
        for j, imgs in enumerate(train_batch):
            outputs, _, _, m_items, softmax_score_query, softmax_score_memory, separateness_loss, compactness_loss = model.forward(imgs, m_items, True)
            optimizer.zero_grad()
            loss_pixel = torch.mean(loss_func_mse(outputs, imgs))
            loss = loss_pixel + args["loss_compact"] * compactness_loss + args["loss_separate"] * separateness_loss
            loss.backward(retain_graph=True)
            optimizer.step()
        scheduler.step()
        print("Epoch:", epoch + 1, "Reconstruction {:.6f}/ Compactness {:.6f}/ Separateness {:.6f}".format(
            loss_pixel.item(), compactness_loss.item(), separateness_loss.item()))
    print("Memory_items:", m_items.shape)


if __name__ == "__main__":
    main()
